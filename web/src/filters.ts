// A list page's filters, kept in the address's query string (`/cabinet/console/requests?status=failed`)
// so a reload, a bookmark or a copied address shows the same list. The form edits a draft; Apply
// makes it the filters and writes them to the address with replaceState: the back button leaves
// the page rather than stepping through every filter tried. The page (the path) is the router's;
// the query string is only read here.
import { useState } from 'preact/hooks';
import { queryString } from './api.js';

export type FilterValues = Record<string, string>;

/** The filters named in `empty` from the address's query string; the others are ignored. */
export function filtersFromQuery<F extends FilterValues>(empty: F, search: string): F {
  const query = new URLSearchParams(search);
  const values: FilterValues = { ...empty };
  for (const name of Object.keys(empty)) values[name] = query.get(name) ?? empty[name]!;
  return values as F;
}

export interface QueryFilters<F extends FilterValues> {
  /** What the form shows. */
  readonly draft: F;
  /** What the list is filtered by. */
  readonly applied: F;
  setDraft(next: F): void;
  /** value and onInput for an input or select bound to the draft's `name`. */
  field(name: keyof F & string): { value: string; onInput: (event: Event) => void };
  apply(next?: F): void;
  reset(): void;
}

export function useQueryFilters<F extends FilterValues>(empty: F): QueryFilters<F> {
  const [draft, setDraft] = useState<F>(() => filtersFromQuery(empty, location.search));
  const [applied, setApplied] = useState<F>(draft);
  const apply = (next: F) => {
    history.replaceState(history.state, '', `${location.pathname}${queryString(next)}`);
    setApplied(next);
  };
  return {
    draft,
    applied,
    setDraft,
    field: (name) => ({
      value: draft[name]!,
      onInput: (event) => setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value }),
    }),
    apply: (next = draft) => {
      setDraft(next);
      apply(next);
    },
    reset: () => {
      setDraft(empty);
      apply(empty);
    },
  };
}
