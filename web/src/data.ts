// Loading data for a page: the hook keeps the answer, the error and a reload function, and
// drops answers that arrive after the page asked for something else.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: unknown;
  readonly loading: boolean;
  reload(): void;
}

export function useLoad<T>(load: () => Promise<T>, dependencies: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const run = useCallback(() => {
    const mine = ++generation.current;
    setLoading(true);
    load().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (reason: unknown) => {
        if (mine !== generation.current) return;
        setError(reason);
        setLoading(false);
      },
    );
  }, dependencies);
  useEffect(() => {
    run();
    return () => {
      generation.current++;
    };
  }, [run]);
  return { data, error, loading, reload: run };
}

/** Cursor paging: the cursors of the pages before this one, so "previous" works too. */
export function useCursorPages(): { cursor: string | undefined; hasPrevious: boolean; next(cursor: string): void; previous(): void; reset(): void } {
  const [stack, setStack] = useState<(string | undefined)[]>([undefined]);
  return {
    cursor: stack[stack.length - 1],
    hasPrevious: stack.length > 1,
    next: (cursor) => setStack((current) => [...current, cursor]),
    previous: () => setStack((current) => (current.length > 1 ? current.slice(0, -1) : current)),
    reset: () => setStack([undefined]),
  };
}

export interface Action {
  /** True while the action runs (its button is disabled meanwhile). */
  readonly busy: boolean;
  /** What the last run threw, to show; cleared when the next one starts. */
  readonly error: unknown;
  run(action: () => Promise<void>): Promise<void>;
}

/** A change the user starts (a form sent, a button pressed): busy while it runs, its failure kept to show. */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (action: () => Promise<void>) => {
    setError(undefined);
    setBusy(true);
    try {
      await action();
    } catch (reason) {
      setError(reason);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
