// THE place where every HTTP route is declared with what it needs: a key or not, the scope
// it requires, whether it is rate limited and how its body is parsed. app.ts builds each
// route's middleware chain from this table, so no route can forget auth, scope or limits.
// Later capabilities add their rows here (chat: scope chat; images: scope images; …).
import type { Scope } from '../auth/scopes.js';
import type { AdminScope } from '../cabinet/admin-scopes.js';
import { chatCompletionsDialect } from '../dialects/chat-completions/index.js';
import { encodeGeminiError, generateContentDialect, streamGenerateContentDialect } from '../dialects/gemini/index.js';
import { messagesDialect } from '../dialects/messages/index.js';
import type { ErrorEncoder } from '../dialects/types.js';
import { responsesDialect } from '../dialects/responses/index.js';
import { chatHandler, countTokens } from './routes/chat.js';
import { createDecision } from './routes/decisions.js';
import { createEmbeddings } from './routes/embeddings.js';
import { countGeminiTokens, generateContent, listGeminiModels, retrieveGeminiModel } from './routes/gemini.js';
import { healthz, metrics, readyz } from './routes/health.js';
import { editImages, generateImages, priceImages } from './routes/images.js';
import { createSpeech, priceSpeech } from './routes/speech.js';
import { createTranscription, priceTranscription } from './routes/transcriptions.js';
import { upscaleImage } from './routes/upscale.js';
import { listHistory } from './routes/history.js';
import { fileContent, keepFile, listFiles, retrieveFile } from './routes/files.js';
import { fileByLink } from './routes/file-links.js';
import { generationContent, listGenerations, retrieveGeneration } from './routes/generations.js';
import { createMusic, musicContent, priceMusic, retrieveMusic } from './routes/music.js';
import { priceVideoUpscale, upscaleVideo } from './routes/video-upscale.js';
import { cancelResponse, createResponse, retrieveResponse } from './routes/background-responses.js';
import { createVideo, deleteVideo, listVideos, priceVideo, retrieveVideo, videoContent } from './routes/videos.js';
import { listModels, retrieveModel } from './routes/models.js';
import { adjustAccount, createAccount, disableAccount, enableAccount, listAccounts, showAccount, topupAccount } from './routes/admin-accounts.js';
import { cancelJobRoute, listJobs } from './routes/admin-jobs.js';
import { listTransactions, refundCharge } from './routes/admin-ledger.js';
import { createLoginLink } from './routes/admin-login-link.js';
import { createKey, listKeys, revokeKey, updateKey } from './routes/admin-keys.js';
import { adminOpenApi } from './routes/admin-openapi.js';
import { createInvites, listInvites, revokeInvite } from './routes/admin-invites.js';
import { createCodes, disableCodes, listCodeBatches, showCodeBatch } from './routes/admin-codes.js';
import { listAudit, usageReportRoute } from './routes/admin-reports.js';
import { listPayments, refundPayment, showPayment } from './routes/admin-payments.js';
import { listRequestLog } from './routes/admin-request-log.js';
import { disableUser, enableUser, listUsers, showUser } from './routes/admin-users.js';
import { listUpstreams, showSystem } from './routes/admin-status.js';
import { currentSession, login, loginOptions, logout, rootRedirect } from './routes/cabinet-auth.js';
import { switchAccount } from './routes/cabinet-account-switch.js';
import { cabinetHistory } from './routes/cabinet-history.js';
import { joinAccount } from './routes/cabinet-join.js';
import { changeEmail, changePassword, confirmPasswordReset, passwordLogin, requestPasswordReset, signUp, verifyEmailLink } from './routes/cabinet-password.js';
import { oidcCallback, oidcStart, telegramCallback } from './routes/cabinet-outside-login.js';
import { createCabinetKey, listCabinetKeys, revokeCabinetKey, rotateWebhookSecret, showWebhookSecret, updateCabinetKey } from './routes/cabinet-keys.js';
import { changeMemberRole, inviteMember, listMembers, removeMember } from './routes/cabinet-members.js';
import { cabinetModels, cabinetOverview } from './routes/cabinet-overview.js';
import { cabinetFilesQuota, deleteCabinetFile, deleteCabinetGeneration, keepCabinetGeneration, listCabinetGenerations, retrieveCabinetGeneration } from './routes/cabinet-storage.js';
import { createCabinetPayment, listCabinetPayments, retrieveCabinetPayment } from './routes/cabinet-payments.js';
import { redeemCabinetCode } from './routes/cabinet-codes.js';
import { paymentNotification } from './routes/payment-notifications.js';
import { cabinetReferral } from './routes/cabinet-referral.js';
import { cabinetLowBalance, updateCabinetLowBalance } from './routes/cabinet-low-balance.js';
import { cabinetTelegram, createTelegramLink, deleteTelegramLink } from './routes/cabinet-telegram.js';
import { redirectToCabinet, serveCabinet } from './routes/web.js';
import type { Handler } from './state.js';

interface RouteCommon {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  /**
   * The handler re-checks the key where it places its hold (or, placing none, looks it up),
   * so the key may come from the process's cache: one database round trip less per request.
   * For the chat routes, where most traffic goes (src/auth/api-keys.ts).
   */
  readonly keyCheckedByHold?: boolean;
  /** Rate limited per key (default: every route that takes a key, the cabinet key of `session` routes too). */
  readonly rateLimited?: boolean;
  /**
   * `session` routes only: for the account's owners (moving money, managing members, changing the
   * account's details); a member's session gets 403 owner_required (src/users/account-members.ts).
   */
  readonly owner?: boolean;
  /** How the request body is read (default none). `multipart`: the handler streams it with readMultipart. */
  readonly body?: 'json' | 'multipart';
  /**
   * The dialect whose error body this route answers (src/http/error-shape.ts). Unnamed: by the
   * path, as for unmatched paths (/v1/messages* Anthropic's, the rest OpenAI-style: media, jobs,
   * files and lists use src/dialects/shared/openai-error.ts).
   */
  readonly errors?: ErrorEncoder;
  readonly handler: Handler;
}

/**
 * `auth` — `none`: public; `key`: a valid, unrevoked API key. The web cabinet's (docs/cabinet.md):
 * `session`: the cookie of a live account session (+ x-csrf-token on anything but GET/HEAD);
 * the request then acts as the account's cabinet key (ctx.state.apiKey), so scope and rate
 * limit apply as to a key. `admin`: an admin token (Bearer gwa_…) or the cookie of a live
 * operator session (+ x-csrf-token); ctx.state.actor names who acts. A session of the other
 * kind is 403 forbidden.
 *
 * `scope` — for `key` and `session` routes, the key scope needed (null when any valid key will
 * do); for `admin` routes, the admin token scope needed (src/cabinet/admin-scopes.ts), which
 * every admin route must name: an admin row without one does not compile.
 */
export type RouteDefinition = RouteCommon &
  ({ readonly auth: 'none' | 'key' | 'session'; readonly scope: Scope | null } | { readonly auth: 'admin'; readonly scope: AdminScope });

export const routeTable: readonly RouteDefinition[] = [
  { method: 'GET', path: '/healthz', auth: 'none', scope: null, handler: healthz },
  { method: 'GET', path: '/readyz', auth: 'none', scope: null, handler: readyz },
  { method: 'GET', path: '/metrics', auth: 'none', scope: null, handler: metrics },
  // The web cabinet's login (src/http/routes/cabinet-auth.ts): both kinds of session; the handlers read it.
  { method: 'GET', path: '/', auth: 'none', scope: null, handler: rootRedirect },
  { method: 'POST', path: '/cabinet/api/login', auth: 'none', scope: null, body: 'json', handler: login },
  { method: 'POST', path: '/cabinet/api/logout', auth: 'none', scope: null, handler: logout },
  { method: 'GET', path: '/cabinet/api/session', auth: 'none', scope: null, handler: currentSession },
  { method: 'GET', path: '/cabinet/api/login-options', auth: 'none', scope: null, handler: loginOptions },
  // Following an invitation and switching accounts: with a user's session or, for a join, none (cabinet-join.ts).
  { method: 'POST', path: '/cabinet/api/join', auth: 'none', scope: null, body: 'json', handler: joinAccount },
  { method: 'POST', path: '/cabinet/api/session/account', auth: 'none', scope: null, body: 'json', handler: switchAccount },
  // Email and password accounts (src/http/routes/cabinet-password.ts): public but for the last two.
  { method: 'POST', path: '/cabinet/api/signup', auth: 'none', scope: null, body: 'json', handler: signUp },
  { method: 'POST', path: '/cabinet/api/verify-email', auth: 'none', scope: null, body: 'json', handler: verifyEmailLink },
  { method: 'POST', path: '/cabinet/api/login/password', auth: 'none', scope: null, body: 'json', handler: passwordLogin },
  { method: 'POST', path: '/cabinet/api/password-reset', auth: 'none', scope: null, body: 'json', handler: requestPasswordReset },
  { method: 'POST', path: '/cabinet/api/password-reset/confirm', auth: 'none', scope: null, body: 'json', handler: confirmPasswordReset },
  { method: 'POST', path: '/cabinet/api/password', auth: 'session', scope: null, body: 'json', handler: changePassword },
  { method: 'POST', path: '/cabinet/api/email', auth: 'session', scope: null, body: 'json', handler: changeEmail },
  // Logins proven by an OpenID Connect provider or Telegram: browser navigations answered by redirects (routes/cabinet-outside-login.ts).
  { method: 'GET', path: '/cabinet/api/oidc/:name/start', auth: 'none', scope: null, handler: oidcStart },
  { method: 'GET', path: '/cabinet/api/oidc/:name/callback', auth: 'none', scope: null, handler: oidcCallback },
  { method: 'GET', path: '/cabinet/api/telegram/callback', auth: 'none', scope: null, handler: telegramCallback },
  // Payment providers' notifications (routes/payment-notifications.ts): public, checked by each provider's adapter, never credited from the body.
  { method: 'POST', path: '/payments/:provider/notifications', auth: 'none', scope: null, rateLimited: false, handler: paymentNotification },
  // Download links (routes/file-links.ts): public, the token in the path is the credential; not rate limited, as file content is not.
  { method: 'GET', path: '/download/:token', auth: 'none', scope: null, rateLimited: false, handler: fileByLink },
  { method: 'GET', path: '/v1/models', auth: 'none', scope: null, handler: listModels },
  { method: 'GET', path: '/v1/models/{*model}', auth: 'none', scope: null, handler: retrieveModel },
  { method: 'GET', path: '/v1/history', auth: 'key', scope: null, handler: listHistory },
  { method: 'GET', path: '/v1/files', auth: 'key', scope: null, handler: listFiles },
  { method: 'GET', path: '/v1/files/:id', auth: 'key', scope: null, handler: retrieveFile },
  { method: 'GET', path: '/v1/files/:id/content', auth: 'key', scope: null, rateLimited: false, handler: fileContent },
  { method: 'PATCH', path: '/v1/files/:id/keep', auth: 'key', scope: null, handler: keepFile },
  { method: 'GET', path: '/v1/generations', auth: 'key', scope: null, handler: listGenerations },
  { method: 'GET', path: '/v1/generations/:type/:id', auth: 'key', scope: null, handler: retrieveGeneration },
  { method: 'GET', path: '/v1/generations/:type/:id/content', auth: 'key', scope: null, rateLimited: false, handler: generationContent },
  { method: 'POST', path: '/v1/chat/completions', auth: 'key', scope: 'chat', keyCheckedByHold: true, body: 'json', errors: chatCompletionsDialect.encodeError, handler: chatHandler(chatCompletionsDialect) },
  { method: 'POST', path: '/v1/responses', auth: 'key', scope: 'chat', keyCheckedByHold: true, body: 'json', errors: responsesDialect.encodeError, handler: createResponse },
  // Background responses (`background: true`): jobs the client polls and may cancel.
  { method: 'GET', path: '/v1/responses/:id', auth: 'key', rateLimited: false, scope: 'chat', errors: responsesDialect.encodeError, handler: retrieveResponse },
  { method: 'POST', path: '/v1/responses/:id/cancel', auth: 'key', scope: 'chat', errors: responsesDialect.encodeError, handler: cancelResponse },
  { method: 'POST', path: '/v1/messages', auth: 'key', scope: 'chat', keyCheckedByHold: true, body: 'json', errors: messagesDialect.encodeError, handler: chatHandler(messagesDialect) },
  { method: 'POST', path: '/v1/messages/count_tokens', auth: 'key', scope: 'chat', body: 'json', errors: messagesDialect.encodeError, handler: countTokens },
  // The Gemini API (@google/genai; routes/gemini.ts): the model id, slash and all, is everything
  // between `models/` and the `:action`. Under /v1 (what @google/genai 3 calls by default) and
  // /v1beta (Google's documented paths, older SDKs); Google's error body on all of them.
  { method: 'POST', path: '/v1/models/{*model}\\:generateContent', auth: 'key', scope: 'chat', keyCheckedByHold: true, body: 'json', errors: encodeGeminiError, handler: generateContent(generateContentDialect, { stream: false }) },
  { method: 'POST', path: '/v1/models/{*model}\\:streamGenerateContent', auth: 'key', scope: 'chat', keyCheckedByHold: true, body: 'json', errors: encodeGeminiError, handler: generateContent(streamGenerateContentDialect, { stream: true }) },
  { method: 'POST', path: '/v1/models/{*model}\\:countTokens', auth: 'key', scope: 'chat', body: 'json', errors: encodeGeminiError, handler: countGeminiTokens },
  { method: 'GET', path: '/v1beta/models', auth: 'none', scope: null, errors: encodeGeminiError, handler: listGeminiModels },
  { method: 'GET', path: '/v1beta/models/{*model}', auth: 'none', scope: null, errors: encodeGeminiError, handler: retrieveGeminiModel },
  { method: 'POST', path: '/v1beta/models/{*model}\\:generateContent', auth: 'key', scope: 'chat', keyCheckedByHold: true, body: 'json', errors: encodeGeminiError, handler: generateContent(generateContentDialect, { stream: false }) },
  { method: 'POST', path: '/v1beta/models/{*model}\\:streamGenerateContent', auth: 'key', scope: 'chat', keyCheckedByHold: true, body: 'json', errors: encodeGeminiError, handler: generateContent(streamGenerateContentDialect, { stream: true }) },
  { method: 'POST', path: '/v1beta/models/{*model}\\:countTokens', auth: 'key', scope: 'chat', body: 'json', errors: encodeGeminiError, handler: countGeminiTokens },
  { method: 'POST', path: '/v1/decisions', auth: 'key', scope: 'chat', body: 'json', handler: createDecision },
  { method: 'POST', path: '/v1/images/generations', auth: 'key', scope: 'images', body: 'json', handler: generateImages },
  { method: 'POST', path: '/v1/images/edits', auth: 'key', scope: 'images', body: 'multipart', handler: editImages },
  { method: 'POST', path: '/v1/images/upscale', auth: 'key', scope: 'images', body: 'multipart', handler: upscaleImage },
  { method: 'POST', path: '/v1/images/price', auth: 'key', scope: 'images', body: 'json', handler: priceImages },
  { method: 'POST', path: '/v1/audio/speech', auth: 'key', scope: 'audio', body: 'json', handler: createSpeech },
  { method: 'POST', path: '/v1/audio/speech/price', auth: 'key', scope: 'audio', body: 'json', handler: priceSpeech },
  { method: 'POST', path: '/v1/audio/transcriptions', auth: 'key', scope: 'audio', body: 'multipart', handler: createTranscription },
  { method: 'POST', path: '/v1/audio/transcriptions/price', auth: 'key', scope: 'audio', body: 'multipart', handler: priceTranscription },
  { method: 'POST', path: '/v1/embeddings', auth: 'key', scope: 'embeddings', body: 'json', handler: createEmbeddings },
  // Async jobs. /v1/videos takes JSON or multipart (openai-node always sends multipart): the
  // JSON parser leaves a multipart body unread and the handler streams it. Polling a job and
  // downloading its result are not rate limited: they cost no upstream call, and a client
  // pacing itself by openai-poll-after-ms would otherwise spend its whole allowance polling.
  { method: 'POST', path: '/v1/videos', auth: 'key', scope: 'video', body: 'json', handler: createVideo },
  { method: 'POST', path: '/v1/videos/price', auth: 'key', scope: 'video', body: 'json', handler: priceVideo },
  { method: 'POST', path: '/v1/videos/upscale', auth: 'key', scope: 'video', body: 'multipart', handler: upscaleVideo },
  { method: 'POST', path: '/v1/videos/upscale/price', auth: 'key', scope: 'video', body: 'multipart', handler: priceVideoUpscale },
  { method: 'GET', path: '/v1/videos', auth: 'key', scope: 'video', handler: listVideos },
  { method: 'GET', path: '/v1/videos/:id', auth: 'key', rateLimited: false, scope: 'video', handler: retrieveVideo },
  { method: 'DELETE', path: '/v1/videos/:id', auth: 'key', scope: 'video', handler: deleteVideo },
  { method: 'GET', path: '/v1/videos/:id/content', auth: 'key', rateLimited: false, scope: 'video', handler: videoContent },
  { method: 'POST', path: '/v1/audio/music', auth: 'key', scope: 'music', body: 'json', handler: createMusic },
  { method: 'POST', path: '/v1/audio/music/price', auth: 'key', scope: 'music', body: 'json', handler: priceMusic },
  { method: 'GET', path: '/v1/audio/music/:id', auth: 'key', rateLimited: false, scope: 'music', handler: retrieveMusic },
  { method: 'GET', path: '/v1/audio/music/:id/content', auth: 'key', rateLimited: false, scope: 'music', handler: musicContent },
  // The account cabinet (docs/cabinet.md#account-cabinet-api): the session's account, acting
  // through its cabinet key, so the /v1 handlers it reuses (files, content, playground) run
  // unchanged and its charges go through the one pipeline and ledger.
  { method: 'GET', path: '/cabinet/api/overview', auth: 'session', scope: null, handler: cabinetOverview },
  { method: 'GET', path: '/cabinet/api/history', auth: 'session', scope: null, handler: cabinetHistory },
  { method: 'GET', path: '/cabinet/api/models', auth: 'session', scope: null, handler: cabinetModels },
  { method: 'GET', path: '/cabinet/api/generations', auth: 'session', scope: null, handler: listCabinetGenerations },
  { method: 'GET', path: '/cabinet/api/generations/:type/:id', auth: 'session', scope: null, handler: retrieveCabinetGeneration },
  { method: 'GET', path: '/cabinet/api/generations/:type/:id/content', auth: 'session', scope: null, rateLimited: false, handler: generationContent },
  { method: 'PATCH', path: '/cabinet/api/generations/:type/:id/keep', auth: 'session', scope: null, handler: keepCabinetGeneration },
  { method: 'DELETE', path: '/cabinet/api/generations/:type/:id', auth: 'session', scope: null, handler: deleteCabinetGeneration },
  { method: 'GET', path: '/cabinet/api/files', auth: 'session', scope: null, handler: listFiles },
  { method: 'GET', path: '/cabinet/api/files/quota', auth: 'session', scope: null, handler: cabinetFilesQuota },
  { method: 'GET', path: '/cabinet/api/files/:id', auth: 'session', scope: null, handler: retrieveFile },
  { method: 'GET', path: '/cabinet/api/files/:id/content', auth: 'session', scope: null, rateLimited: false, handler: fileContent },
  { method: 'PATCH', path: '/cabinet/api/files/:id/keep', auth: 'session', scope: null, handler: keepFile },
  { method: 'DELETE', path: '/cabinet/api/files/:id', auth: 'session', scope: null, handler: deleteCabinetFile },
  { method: 'GET', path: '/cabinet/api/keys', auth: 'session', scope: null, handler: listCabinetKeys },
  { method: 'POST', path: '/cabinet/api/keys', auth: 'session', scope: null, body: 'json', handler: createCabinetKey },
  { method: 'PATCH', path: '/cabinet/api/keys/:id', auth: 'session', scope: null, body: 'json', handler: updateCabinetKey },
  { method: 'POST', path: '/cabinet/api/keys/:id/revoke', auth: 'session', scope: null, handler: revokeCabinetKey },
  { method: 'GET', path: '/cabinet/api/webhook-secret', auth: 'session', scope: null, handler: showWebhookSecret },
  { method: 'POST', path: '/cabinet/api/webhook-secret/rotate', auth: 'session', scope: null, owner: true, handler: rotateWebhookSecret },
  // The account's members (cabinet-members.ts): everyone sees them, owners change them.
  // Top-ups (routes/cabinet-payments.ts): any member may add money; refunds are the operator's.
  { method: 'GET', path: '/cabinet/api/payments', auth: 'session', scope: null, handler: listCabinetPayments },
  { method: 'POST', path: '/cabinet/api/payments', auth: 'session', scope: null, body: 'json', handler: createCabinetPayment },
  { method: 'GET', path: '/cabinet/api/payments/:id', auth: 'session', scope: null, handler: retrieveCabinetPayment },
  // Redemption codes (routes/cabinet-codes.ts): any member may redeem one; limited per account and per address besides the key's limit.
  { method: 'POST', path: '/cabinet/api/codes/redeem', auth: 'session', scope: null, body: 'json', handler: redeemCabinetCode },
  // Referral link and income (routes/cabinet-referral.ts); low-balance notices (routes/cabinet-low-balance.ts): owners change them.
  { method: 'GET', path: '/cabinet/api/referral', auth: 'session', scope: null, handler: cabinetReferral },
  { method: 'GET', path: '/cabinet/api/low-balance', auth: 'session', scope: null, handler: cabinetLowBalance },
  { method: 'PUT', path: '/cabinet/api/low-balance', auth: 'session', scope: null, owner: true, body: 'json', handler: updateCabinetLowBalance },
  { method: 'GET', path: '/cabinet/api/telegram', auth: 'session', scope: null, handler: cabinetTelegram },
  { method: 'POST', path: '/cabinet/api/telegram/link', auth: 'session', scope: null, handler: createTelegramLink },
  { method: 'DELETE', path: '/cabinet/api/telegram', auth: 'session', scope: null, handler: deleteTelegramLink },
  { method: 'GET', path: '/cabinet/api/members', auth: 'session', scope: null, handler: listMembers },
  { method: 'POST', path: '/cabinet/api/members/invite', auth: 'session', scope: null, owner: true, body: 'json', handler: inviteMember },
  { method: 'POST', path: '/cabinet/api/members/:userId/role', auth: 'session', scope: null, owner: true, body: 'json', handler: changeMemberRole },
  { method: 'DELETE', path: '/cabinet/api/members/:userId', auth: 'session', scope: null, owner: true, handler: removeMember },
  // The playground: the /v1 handlers themselves.
  { method: 'POST', path: '/cabinet/api/chat/completions', auth: 'session', scope: 'chat', body: 'json', errors: chatCompletionsDialect.encodeError, handler: chatHandler(chatCompletionsDialect) },
  { method: 'POST', path: '/cabinet/api/images/price', auth: 'session', scope: 'images', body: 'json', handler: priceImages },
  { method: 'POST', path: '/cabinet/api/images/generations', auth: 'session', scope: 'images', body: 'json', handler: generateImages },
  // Its videos, upscales and music: jobs the page submits with an idempotency key, then polls
  // (polling and content not rate limited, as on /v1); speech and transcriptions: quoted first too.
  { method: 'POST', path: '/cabinet/api/videos', auth: 'session', scope: 'video', body: 'json', handler: createVideo },
  { method: 'POST', path: '/cabinet/api/videos/price', auth: 'session', scope: 'video', body: 'json', handler: priceVideo },
  { method: 'POST', path: '/cabinet/api/videos/upscale', auth: 'session', scope: 'video', body: 'multipart', handler: upscaleVideo },
  { method: 'POST', path: '/cabinet/api/videos/upscale/price', auth: 'session', scope: 'video', body: 'multipart', handler: priceVideoUpscale },
  { method: 'GET', path: '/cabinet/api/videos/:id', auth: 'session', rateLimited: false, scope: 'video', handler: retrieveVideo },
  { method: 'GET', path: '/cabinet/api/videos/:id/content', auth: 'session', rateLimited: false, scope: 'video', handler: videoContent },
  { method: 'POST', path: '/cabinet/api/audio/music', auth: 'session', scope: 'music', body: 'json', handler: createMusic },
  { method: 'POST', path: '/cabinet/api/audio/music/price', auth: 'session', scope: 'music', body: 'json', handler: priceMusic },
  { method: 'GET', path: '/cabinet/api/audio/music/:id', auth: 'session', rateLimited: false, scope: 'music', handler: retrieveMusic },
  { method: 'GET', path: '/cabinet/api/audio/music/:id/content', auth: 'session', rateLimited: false, scope: 'music', handler: musicContent },
  { method: 'POST', path: '/cabinet/api/audio/speech', auth: 'session', scope: 'audio', body: 'json', handler: createSpeech },
  { method: 'POST', path: '/cabinet/api/audio/speech/price', auth: 'session', scope: 'audio', body: 'json', handler: priceSpeech },
  { method: 'POST', path: '/cabinet/api/audio/transcriptions', auth: 'session', scope: 'audio', body: 'multipart', handler: createTranscription },
  { method: 'POST', path: '/cabinet/api/audio/transcriptions/price', auth: 'session', scope: 'audio', body: 'multipart', handler: priceTranscription },
  // The admin API (docs/admin-api.md; src/admin/openapi.ts documents each row, a test keeps them equal).
  // Each row names the admin token scope it needs (src/cabinet/admin-scopes.ts: read = a GET
  // revealing no secret; accounts; keys; money = anything moving or releasing money; admin = secrets).
  { method: 'GET', path: '/admin/v1/openapi.json', auth: 'none', scope: null, handler: adminOpenApi },
  { method: 'GET', path: '/admin/v1/accounts', auth: 'admin', scope: 'read', handler: listAccounts },
  { method: 'POST', path: '/admin/v1/accounts', auth: 'admin', scope: 'accounts', body: 'json', handler: createAccount },
  { method: 'GET', path: '/admin/v1/accounts/:id', auth: 'admin', scope: 'admin', handler: showAccount },
  { method: 'POST', path: '/admin/v1/accounts/:id/disable', auth: 'admin', scope: 'accounts', body: 'json', handler: disableAccount },
  { method: 'POST', path: '/admin/v1/accounts/:id/enable', auth: 'admin', scope: 'accounts', body: 'json', handler: enableAccount },
  { method: 'POST', path: '/admin/v1/accounts/:id/topup', auth: 'admin', scope: 'money', body: 'json', handler: topupAccount },
  { method: 'POST', path: '/admin/v1/accounts/:id/adjust', auth: 'admin', scope: 'money', body: 'json', handler: adjustAccount },
  { method: 'GET', path: '/admin/v1/accounts/:id/transactions', auth: 'admin', scope: 'read', handler: listTransactions },
  { method: 'POST', path: '/admin/v1/accounts/:id/refund', auth: 'admin', scope: 'money', body: 'json', handler: refundCharge },
  // A login link is a credential: the `admin` scope, as secrets are.
  { method: 'POST', path: '/admin/v1/accounts/:id/login-link', auth: 'admin', scope: 'admin', handler: createLoginLink },
  { method: 'GET', path: '/admin/v1/accounts/:id/keys', auth: 'admin', scope: 'read', handler: listKeys },
  { method: 'POST', path: '/admin/v1/accounts/:id/keys', auth: 'admin', scope: 'keys', body: 'json', handler: createKey },
  { method: 'PATCH', path: '/admin/v1/keys/:id', auth: 'admin', scope: 'keys', body: 'json', handler: updateKey },
  { method: 'POST', path: '/admin/v1/keys/:id/revoke', auth: 'admin', scope: 'keys', handler: revokeKey },
  { method: 'GET', path: '/admin/v1/users', auth: 'admin', scope: 'accounts', handler: listUsers },
  { method: 'GET', path: '/admin/v1/users/:id', auth: 'admin', scope: 'accounts', handler: showUser },
  { method: 'POST', path: '/admin/v1/users/:id/disable', auth: 'admin', scope: 'accounts', handler: disableUser },
  { method: 'POST', path: '/admin/v1/users/:id/enable', auth: 'admin', scope: 'accounts', handler: enableUser },
  { method: 'GET', path: '/admin/v1/request-log', auth: 'admin', scope: 'read', handler: listRequestLog },
  { method: 'GET', path: '/admin/v1/jobs', auth: 'admin', scope: 'read', handler: listJobs },
  { method: 'POST', path: '/admin/v1/jobs/:id/cancel', auth: 'admin', scope: 'money', handler: cancelJobRoute },
  { method: 'GET', path: '/admin/v1/upstreams', auth: 'admin', scope: 'read', handler: listUpstreams },
  { method: 'GET', path: '/admin/v1/system', auth: 'admin', scope: 'read', handler: showSystem },
  { method: 'GET', path: '/admin/v1/usage', auth: 'admin', scope: 'read', handler: usageReportRoute },
  { method: 'GET', path: '/admin/v1/audit', auth: 'admin', scope: 'read', handler: listAudit },
  { method: 'GET', path: '/admin/v1/invites', auth: 'admin', scope: 'read', handler: listInvites },
  { method: 'POST', path: '/admin/v1/invites', auth: 'admin', scope: 'accounts', body: 'json', handler: createInvites },
  { method: 'POST', path: '/admin/v1/invites/:id/revoke', auth: 'admin', scope: 'accounts', handler: revokeInvite },
  // Redemption codes (routes/admin-codes.ts): making and disabling them decides about money; a list shows no code.
  { method: 'GET', path: '/admin/v1/codes', auth: 'admin', scope: 'read', handler: listCodeBatches },
  { method: 'POST', path: '/admin/v1/codes', auth: 'admin', scope: 'money', body: 'json', handler: createCodes },
  { method: 'GET', path: '/admin/v1/codes/:batchId', auth: 'admin', scope: 'read', handler: showCodeBatch },
  { method: 'POST', path: '/admin/v1/codes/:id/disable', auth: 'admin', scope: 'money', handler: disableCodes },
  // Customers' payments (routes/admin-payments.ts): reading them is `read`, a refund to the card moves money.
  { method: 'GET', path: '/admin/v1/payments', auth: 'admin', scope: 'read', handler: listPayments },
  { method: 'GET', path: '/admin/v1/payments/:id', auth: 'admin', scope: 'read', handler: showPayment },
  { method: 'POST', path: '/admin/v1/payments/:id/refund', auth: 'admin', scope: 'money', body: 'json', handler: refundPayment },
  // The web cabinet's page and files (routes/web.ts). Last: a /cabinet/api/* path answered by
  // none of the rows above falls through to it and gets unknown_endpoint. /cabinet/{*page}
  // comes before /cabinet, which the router would also match with a trailing slash.
  { method: 'GET', path: '/cabinet/{*page}', auth: 'none', scope: null, handler: serveCabinet },
  { method: 'GET', path: '/cabinet', auth: 'none', scope: null, handler: redirectToCabinet },
];
