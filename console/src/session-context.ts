import { createContext, useContext } from 'react';
import type { ApiClient } from '../../client';
import type { ConsoleSettings } from '../../src/console-settings';
import type { Caller } from './session';
import type { Permission } from '../../src/auth/permissions';

export interface Session {
  api: ApiClient;
  caller: Caller;
  settings: ConsoleSettings;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

/** The signed-in session; pages render only inside it. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in console');
  return session;
}

/** Whether the token grants a permission: what it may not do is not offered (the API still checks every call). */
export function useCan(permission: Permission | 'admin'): boolean {
  const { caller } = useSession();
  return permission === 'admin' ? caller.admin : caller.permissions.has(permission);
}
