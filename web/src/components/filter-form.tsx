// The filter form of a list page: its fields, then Apply and Reset. Either one starts the list
// again from its first page (onApply / onReset also reset the page's cursor).
import type { ComponentChildren } from 'preact';
import { useI18n } from '../i18n/index.js';

export function FilterForm(props: { onApply: () => void; onReset: () => void; children: ComponentChildren }) {
  const { t } = useI18n();
  return (
    <form
      class="filters"
      aria-label={t('history.filters')}
      onSubmit={(event) => {
        event.preventDefault();
        props.onApply();
      }}
    >
      {props.children}
      <div class="filter-actions">
        <button type="submit">{t('history.apply')}</button>
        <button type="button" onClick={props.onReset}>
          {t('history.reset')}
        </button>
      </div>
    </form>
  );
}
