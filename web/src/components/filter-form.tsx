// The filter form of a list page: its fields, then Apply and Reset. Either one starts a paged
// list again from its first page.
import type { ComponentChildren } from 'preact';
import type { QueryFilters } from '../filters.js';
import { useI18n } from '../i18n/index.js';

export function FilterForm<F extends Record<string, string>>(props: { filters: QueryFilters<F>; pages?: { reset(): void }; children: ComponentChildren }) {
  const { t } = useI18n();
  const { filters, pages } = props;
  return (
    <form
      class="filters"
      aria-label={t('history.filters')}
      onSubmit={(event) => {
        event.preventDefault();
        pages?.reset();
        filters.apply();
      }}
    >
      {props.children}
      <div class="filter-actions">
        <button type="submit">{t('history.apply')}</button>
        <button
          type="button"
          onClick={() => {
            pages?.reset();
            filters.reset();
          }}
        >
          {t('history.reset')}
        </button>
      </div>
    </form>
  );
}

/** What QueryFilters.field gives: a control bound to one filter of the draft. */
export interface FilterBinding {
  value: string;
  onInput: (event: Event) => void;
}

/** A filter chosen from a list, "All" first (the empty value: not filtered). */
export function ChoiceFilter(props: { label: string; binding: FilterBinding; choices: readonly { value: string; label: string }[] }) {
  const { t } = useI18n();
  return (
    <label>
      {props.label}
      <select {...props.binding}>
        <option value="">{t('common.all')}</option>
        {props.choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The account filter of the console's lists: an account's id or name. */
export function AccountFilter(props: { binding: FilterBinding }) {
  const { t } = useI18n();
  return (
    <label>
      {t('console.requests.account')}
      <input type="text" {...props.binding} placeholder={t('console.requests.accountPlaceholder')} />
    </label>
  );
}
