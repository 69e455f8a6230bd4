// Changing a key's controls after it was made: a button on the key's row opens a modal dialog
// (the browser's <dialog>: focus kept inside, Escape closes it) with the key's controls as the
// new key's form has them, filled in. Saving sends only what was changed (PATCH); the secret
// stays the same, and the change holds from the key's next request.
import { useRef, useState } from 'preact/hooks';
import { useAction } from '../data.js';
import { useI18n } from '../i18n/index.js';
import type { CatalogModel } from '../models.js';
import { ErrorMessage } from './common.js';
import { changeBody, fieldLabels, KeyControlsFields, stateOfKey, type ControlsState, type KeyControlsRow } from './key-controls.js';

export function KeyChangeButton(props: {
  apiKey: KeyControlsRow & { id: string };
  /** How the row names the key (for the button's accessible name and the dialog's title). */
  label: string;
  models: CatalogModel[] | undefined;
  change: (id: string, body: Record<string, unknown>) => Promise<unknown>;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  const [before, setBefore] = useState<ControlsState | undefined>(undefined);
  const [state, setState] = useState<ControlsState | undefined>(undefined);
  const { busy, error, run } = useAction();
  const headingId = `change-key-${props.apiKey.id}`;
  const close = () => {
    dialog.current?.close();
    setState(undefined);
  };
  return (
    <>
      <button
        type="button"
        onClick={() => {
          const current = stateOfKey(props.apiKey);
          setBefore(current);
          setState(current);
          dialog.current?.showModal();
        }}
      >
        {t('keyControls.change')}
        <span class="visually-hidden"> {props.label}</span>
      </button>
      <dialog ref={dialog} class="key-change" aria-labelledby={headingId} onClose={() => setState(undefined)}>
        <h2 id={headingId}>{t('keyControls.changeTitle', { name: props.label })}</h2>
        {state && before && (
          <form
            class="stacked"
            onSubmit={(event) => {
              event.preventDefault();
              void run(async () => {
                const body = changeBody(before, state);
                if (Object.keys(body).length > 0) await props.change(props.apiKey.id, body);
                close();
                props.onChanged();
              });
            }}
          >
            <KeyControlsFields state={state} onChange={setState} models={props.models} idPrefix={headingId} />
            <ErrorMessage error={error} fields={fieldLabels(t)} />
            <div class="actions">
              <button type="submit" class="primary" disabled={busy || state.scopes.length === 0}>
                {t('keyControls.save')}
              </button>
              <button type="button" onClick={close}>
                {t('keyControls.cancel')}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </>
  );
}
