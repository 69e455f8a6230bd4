// A refusal on the sign-up, login and account pages in the page's language when the page has
// words for it (password-account.ts), else the server's message (a validation error under
// its field's label).
import { ErrorMessage } from '../components/common.js';
import { useI18n } from '../i18n/index.js';
import { messageKeyOf } from '../password-account.js';

export function AccountError(props: { error: unknown; fields?: Record<string, string> }) {
  const { t } = useI18n();
  if (props.error === undefined || props.error === null) return null;
  const key = messageKeyOf(props.error);
  if (key === undefined) return <ErrorMessage error={props.error} fields={props.fields} />;
  return (
    <p class="error" role="alert">
      {t(key)}
    </p>
  );
}
