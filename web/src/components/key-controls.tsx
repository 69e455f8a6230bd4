// A key's controls as a form edits them, for a new key and for a change alike: scopes (every
// one by default), requests and tokens per minute, requests at once, expiry (a date: the key
// stops at 00:00 UTC of that day), a budget (RUB per day, week, month or in total), the models
// it may use (picked from the catalog; none picked: any) and the addresses it may be used from.
// The server reads every value as `gateway keys create` does (src/auth/key-control-fields.ts)
// and names the field of a wrong one; the form shows that message at the field's label.
import { useI18n } from '../i18n/index.js';
import type { MessageKey } from '../i18n/en.js';
import type { CatalogModel } from '../models.js';

export const scopes = ['chat', 'search', 'images', 'video', 'music', 'audio', 'embeddings'] as const;
export const budgetPeriods = ['day', 'week', 'month', 'total'] as const;

/** The form's state: every field as text, as the inputs hold it ('' is "not set"). */
export interface ControlsState {
  name: string;
  scopes: string[];
  rpm: string;
  tpm: string;
  maxInFlight: string;
  /** YYYY-MM-DD, or '' for never. */
  expires: string;
  budget: string;
  budgetPeriod: string;
  models: string[];
  /** Comma- or space-separated addresses and CIDR blocks. */
  allowedIps: string;
}

/** A key as the APIs list it: the fields the form reads. */
export interface KeyControlsRow {
  name: string | null;
  scopes: string[];
  rpm: number | null;
  tpm?: number | null;
  max_in_flight?: number | null;
  /** Unix seconds (cabinet) or an ISO time (admin API). */
  expires_at?: number | string | null;
  models?: string[] | null;
  allowed_ips?: string[] | null;
  budget_rub?: string | null;
  budget_period?: string | null;
}

export const newKeyState = (): ControlsState => ({ name: '', scopes: [...scopes], rpm: '', tpm: '', maxInFlight: '', expires: '', budget: '', budgetPeriod: 'month', models: [], allowedIps: '' });

const text = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));

/** The UTC day of an expiry (what the date input shows). */
function expiryDay(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '';
  const date = new Date(typeof value === 'number' ? value * 1000 : value);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 10);
}

export function stateOfKey(key: KeyControlsRow): ControlsState {
  return {
    name: key.name ?? '',
    scopes: [...key.scopes],
    rpm: text(key.rpm),
    tpm: text(key.tpm),
    maxInFlight: text(key.max_in_flight),
    expires: expiryDay(key.expires_at),
    // The amount as one types it: 5.0000 reads 5, 0.0100 reads 0.01.
    budget: key.budget_rub ? key.budget_rub.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') : '',
    budgetPeriod: key.budget_period ?? 'month',
    models: key.models ?? [],
    allowedIps: (key.allowed_ips ?? []).join(', '),
  };
}

const limit = (value: string) => (value.trim() === '' ? null : Number(value));
const addresses = (value: string) => value.split(/[\s,]+/).filter((entry) => entry !== '');

/** Each control as the API's body field takes it (nulls: the control lifted). */
function fieldsOf(state: ControlsState): Record<string, unknown> {
  return {
    name: state.name,
    scopes: state.scopes,
    rpm: limit(state.rpm),
    tpm: limit(state.tpm),
    max_in_flight: limit(state.maxInFlight),
    expires: state.expires === '' ? 'never' : state.expires,
    models: state.models.length === 0 ? null : state.models,
    allowed_ips: addresses(state.allowedIps).length === 0 ? null : addresses(state.allowedIps),
    budget_rub: state.budget.trim() === '' ? null : state.budget.trim(),
    budget_period: state.budgetPeriod,
  };
}

/** The body of a new key: what is set (an unset control is simply left out). */
export function createBody(state: ControlsState): Record<string, unknown> {
  const fields = fieldsOf(state);
  const body: Record<string, unknown> = { name: state.name, scopes: state.scopes };
  for (const field of ['rpm', 'tpm', 'max_in_flight', 'models', 'allowed_ips'] as const) if (fields[field] !== null) body[field] = fields[field];
  if (state.expires !== '') body.expires = state.expires;
  if (fields.budget_rub !== null) Object.assign(body, { budget_rub: fields.budget_rub, budget_period: state.budgetPeriod });
  return body;
}

/** The body of a change: only what differs from the key as it was (so an expiry the form cannot show to the minute stays as it is). */
export function changeBody(before: ControlsState, after: ControlsState): Record<string, unknown> {
  const [from, to] = [fieldsOf(before), fieldsOf(after)];
  const body: Record<string, unknown> = {};
  for (const field of Object.keys(to)) if (JSON.stringify(from[field]) !== JSON.stringify(to[field])) body[field] = to[field];
  // A budget is an amount per period: either one changed sends both.
  if ('budget_period' in body && to.budget_rub === null) delete body.budget_period;
  if ('budget_rub' in body && to.budget_rub !== null) body.budget_period = to.budget_period;
  return body;
}

/** The API's body fields, as the form's labels name them (an error naming one is shown with its label). */
export function fieldLabels(t: (key: MessageKey) => string): Record<string, string> {
  return {
    name: t('keys.name'),
    scopes: t('keys.scopes'),
    rpm: t('keys.rpm'),
    tpm: t('keys.tpm'),
    max_in_flight: t('keys.maxInFlight'),
    expires: t('keyControls.expires'),
    models: t('keyControls.models'),
    allowed_ips: t('keyControls.allowedIps'),
    budget_rub: t('keyControls.budget'),
    budget_period: t('keyControls.budgetPeriod'),
  };
}

/**
 * The inputs of every control. `idPrefix` keeps ids unique when a change dialog and the new
 * key's form are on one page; `models`: the catalog to pick from (ids the key has that the
 * catalog lacks, such as patterns, are offered too, checked).
 */
export function KeyControlsFields(props: { state: ControlsState; onChange: (state: ControlsState) => void; models: CatalogModel[] | undefined; idPrefix: string }) {
  const { t } = useI18n();
  const { state } = props;
  const set = (change: Partial<ControlsState>) => props.onChange({ ...state, ...change });
  const id = (name: string) => `${props.idPrefix}-${name}`;
  const catalog = (props.models ?? []).map((model) => model.id);
  const offered = [...catalog, ...state.models.filter((model) => !catalog.includes(model))];
  return (
    <>
      <label>
        {t('keys.name')}
        <input type="text" name="name" value={state.name} required maxLength={200} onInput={(event) => set({ name: event.currentTarget.value })} />
      </label>
      <fieldset>
        <legend>{t('keys.scopes')}</legend>
        {scopes.map((scope) => (
          <label key={scope} class="inline">
            <input
              type="checkbox"
              name="scopes"
              value={scope}
              checked={state.scopes.includes(scope)}
              onChange={(event) => set({ scopes: event.currentTarget.checked ? scopes.filter((s) => s === scope || state.scopes.includes(s)) : state.scopes.filter((s) => s !== scope) })}
            />
            {scope}
          </label>
        ))}
      </fieldset>
      <div class="row">
        <label>
          {t('keyControls.budget')}
          <input type="text" name="budget_rub" inputMode="decimal" value={state.budget} onInput={(event) => set({ budget: event.currentTarget.value })} aria-describedby={id('budget-help')} />
        </label>
        <label>
          {t('keyControls.budgetPeriod')}
          <select name="budget_period" value={state.budgetPeriod} onChange={(event) => set({ budgetPeriod: event.currentTarget.value })}>
            {budgetPeriods.map((period) => (
              <option key={period} value={period}>
                {t(`keyControls.period.${period}`)}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p id={id('budget-help')} class="muted small">
        {t('keyControls.budgetHelp')}
      </p>
      <fieldset aria-describedby={id('models-help')}>
        <legend>{t('keyControls.models')}</legend>
        {props.models === undefined && <p class="muted small">{t('common.loading')}</p>}
        {offered.map((model) => (
          <label key={model} class="inline">
            <input
              type="checkbox"
              name="models"
              value={model}
              checked={state.models.includes(model)}
              onChange={(event) => set({ models: event.currentTarget.checked ? offered.filter((m) => m === model || state.models.includes(m)) : state.models.filter((m) => m !== model) })}
            />
            {model}
          </label>
        ))}
      </fieldset>
      <p id={id('models-help')} class="muted small">
        {t('keyControls.modelsHelp')}
      </p>
      <label>
        {t('keyControls.expires')}
        <input type="date" name="expires" value={state.expires} onInput={(event) => set({ expires: event.currentTarget.value })} aria-describedby={id('expires-help')} />
      </label>
      <p id={id('expires-help')} class="muted small">
        {t('keyControls.expiresHelp')}
      </p>
      <label>
        {t('keyControls.allowedIps')}
        <input type="text" name="allowed_ips" value={state.allowedIps} onInput={(event) => set({ allowedIps: event.currentTarget.value })} aria-describedby={id('ips-help')} />
      </label>
      <p id={id('ips-help')} class="muted small">
        {t('keyControls.allowedIpsHelp')}
      </p>
      <label>
        {t('keys.rpm')}
        <input type="number" name="rpm" min={1} step={1} value={state.rpm} inputMode="numeric" onInput={(event) => set({ rpm: event.currentTarget.value })} aria-describedby={id('rpm-help')} />
      </label>
      <p id={id('rpm-help')} class="muted small">
        {t('keys.rpmHelp')}
      </p>
      <label>
        {t('keys.tpm')}
        <input type="number" name="tpm" min={1} step={1} value={state.tpm} inputMode="numeric" onInput={(event) => set({ tpm: event.currentTarget.value })} aria-describedby={id('tpm-help')} />
      </label>
      <p id={id('tpm-help')} class="muted small">
        {t('keys.tpmHelp')}
      </p>
      <label>
        {t('keys.maxInFlight')}
        <input type="number" name="max_in_flight" min={1} step={1} value={state.maxInFlight} inputMode="numeric" onInput={(event) => set({ maxInFlight: event.currentTarget.value })} aria-describedby={id('in-flight-help')} />
      </label>
      <p id={id('in-flight-help')} class="muted small">
        {t('keys.maxInFlightHelp')}
      </p>
    </>
  );
}
