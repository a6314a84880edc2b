import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';

function useHidden(): boolean {
  const [hidden, setHidden] = useState(document.hidden);
  useEffect(() => {
    const update = () => setHidden(document.hidden);
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  return hidden;
}

/** When the page's data was last read from the API, and that reading stops while the tab is hidden. */
export function LastRefreshed() {
  const queryClient = useQueryClient();
  const hidden = useHidden();
  const [at, setAt] = useState<number>();
  useEffect(
    () =>
      queryClient.getQueryCache().subscribe((event) => {
        if (event.type === 'updated' && event.action.type === 'success') setAt(event.query.state.dataUpdatedAt);
      }),
    [queryClient],
  );
  return (
    <p className="refreshed">
      {at ? (
        <>
          Refreshed <time dateTime={new Date(at).toISOString()}>{new Date(at).toLocaleTimeString()}</time>
        </>
      ) : (
        'Not read yet'
      )}
      {hidden ? ' · paused while this tab is hidden' : ' · live'}
    </p>
  );
}
