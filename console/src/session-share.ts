/**
 * Sign-in shared by the console's tabs of one origin: a tab opened without a token asks the others over a
 * BroadcastChannel (same origin only, nothing written to storage another tab or a later visit could read), a tab
 * holding a live token answers, and sign-in and sign-out are announced to every tab. Each tab keeps what it was
 * handed in its own sessionStorage, as it keeps a token it signed in with.
 */
type Message = { type: 'ask' } | { type: 'token'; token: string } | { type: 'sign-out' };

const CHANNEL = 'mos-console-session';

export interface SessionShare {
  /** This tab signed in: tabs without a token take it. */
  signedIn(token: string): void;
  /** This tab signed out: every tab signs out. */
  signedOut(): void;
  close(): void;
}

export function shareSession({
  current,
  onToken,
  onSignOut,
}: {
  /** This tab's token while it may still be used (not past its expiry), else null. */
  current: () => string | null;
  onToken: (token: string) => void;
  onSignOut: () => void;
}): SessionShare {
  if (typeof BroadcastChannel === 'undefined') return { signedIn: () => undefined, signedOut: () => undefined, close: () => undefined };
  const channel = new BroadcastChannel(CHANNEL);
  const post = (message: Message) => channel.postMessage(message);
  channel.onmessage = (event: MessageEvent<Message>) => {
    const message = event.data;
    if (message.type === 'ask') {
      const token = current();
      if (token) post({ type: 'token', token });
    } else if (message.type === 'token') {
      if (!current()) onToken(message.token);
    } else if (message.type === 'sign-out') {
      onSignOut();
    }
  };
  if (!current()) post({ type: 'ask' });
  return {
    signedIn: (token) => post({ type: 'token', token }),
    signedOut: () => post({ type: 'sign-out' }),
    close: () => channel.close(),
  };
}
