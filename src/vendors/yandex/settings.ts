// What a Yandex Cloud provider's settings say (Vendor.providerSettings, read from the target):
// the folder its models are billed to, whether the key is an API key or an IAM token, and
// where the long-running operations (YandexART) are polled. The headers every request carries
// follow from them.
import { stringOf } from '../shared/json.js';

/** Where Yandex Cloud answers `GET /operations/{id}`: another host than the models' API. */
export const defaultOperationsUrl = 'https://operation.api.cloud.yandex.net';

export type YandexAuth = 'api_key' | 'iam_token';

export interface YandexSettings {
  readonly folderId: string;
  readonly auth: YandexAuth;
  readonly operationsUrl: string;
}

/** The settings of a target; folder_id is required by the config schema, so its absence here is a bug upstream of us. */
export function yandexSettingsOf(settings: Readonly<Record<string, unknown>> | undefined): YandexSettings {
  const folderId = stringOf(settings?.folder_id) ?? '';
  const auth = settings?.auth === 'iam_token' ? 'iam_token' : 'api_key';
  const operationsUrl = (stringOf(settings?.operations_url) ?? defaultOperationsUrl).replace(/\/+$/, '');
  return { folderId, auth, operationsUrl };
}

/** `Authorization: Api-Key …` or `Bearer <IAM token>`, and the folder the call is billed to. */
export function yandexHeaders(apiKey: string | undefined, settings: YandexSettings): Record<string, string> {
  const headers: Record<string, string> = {};
  if (apiKey) headers.authorization = settings.auth === 'iam_token' ? `Bearer ${apiKey}` : `Api-Key ${apiKey}`;
  if (settings.folderId) headers['x-folder-id'] = settings.folderId;
  return headers;
}

/**
 * The model URI: `<scheme>://<folder>/<model>` from a route's model name ("yandexgpt/latest"),
 * or the name itself when it already is a URI (a fine-tuned model, another folder's model).
 */
export function modelUri(scheme: 'gpt' | 'art', model: string, folderId: string): string {
  return /^[a-z]+:\/\//.test(model) ? model : `${scheme}://${folderId}/${model}`;
}
