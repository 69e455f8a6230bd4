// A button for an action that cannot be undone (delete a file, revoke a key, rotate a secret):
// it asks first with the browser's own confirm dialog — modal, announced by screen readers,
// answered from the keyboard, and nothing for the strict CSP to object to — and runs the action
// only on yes. While the action runs the button is disabled, so a second click cannot send the
// same delete or rotate twice.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function ConfirmButton(props: {
  /** The question the dialog asks, naming what is about to go. */
  question: string;
  onConfirmed: () => Promise<unknown> | void;
  /** Styled as an ordinary button rather than a destructive one. */
  plain?: boolean;
  children: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      class={props.plain ? undefined : 'danger'}
      disabled={busy}
      onClick={async () => {
        if (!confirm(props.question)) return;
        setBusy(true);
        try {
          await props.onConfirmed();
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children}
    </button>
  );
}
