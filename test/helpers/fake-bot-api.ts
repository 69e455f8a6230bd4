// A fake Telegram Bot API server for the bot's tests: a real HTTP server speaking the Bot API's
// wire (POST or GET /bot<token>/<method>, parameters as JSON, urlencoded or multipart form, the
// answer {ok, result} or {ok: false, error_code, description, parameters}), so the bot runs with
// grammY unchanged and `bot.api_url` pointed here.
// - getUpdates long-polls a queue the test feeds (`pushUpdate`, or the `message`/`callback`
//   builders); setWebhook/deleteWebhook record the webhook.
// - sendMessage, editMessageText, sendPhoto, sendDocument, sendAudio, sendVideo, sendVoice,
//   sendChatAction, answerCallbackQuery answer as Telegram would (messages numbered per chat);
//   getFile and GET /file/bot<token>/<path> serve files the test adds (`addFile`).
// - Every call is recorded (`calls`), with its parameters and uploaded files.
// - `failNext(method, …)` makes the next call of a method fail (a 429 with retry_after, say);
//   `block(chatId)` answers every delivery to that chat 403 "bot was blocked by the user".
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import busboy from 'busboy';

export interface RecordedCall {
  readonly method: string;
  readonly token: string;
  readonly params: Record<string, unknown>;
  /** Uploaded files by field name. */
  readonly files: Record<string, { filename: string; bytes: Buffer; mimeType: string }>;
  /** What the server answered: the result, or the failure. */
  answer?: { ok: boolean; result?: unknown; error_code?: number; description?: string };
}

export interface FakeFailure {
  readonly error_code: number;
  readonly description: string;
  readonly parameters?: { retry_after?: number; migrate_to_chat_id?: number };
}

export interface TelegramUserFixture {
  readonly id: number;
  readonly first_name: string;
  readonly last_name?: string;
  readonly username?: string;
  readonly language_code?: string;
}

const deliveryMethods = new Set(['sendMessage', 'editMessageText', 'sendPhoto', 'sendDocument', 'sendAudio', 'sendVideo', 'sendVoice', 'sendChatAction']);
const mediaMethods: Record<string, string> = { sendPhoto: 'photo', sendDocument: 'document', sendAudio: 'audio', sendVideo: 'video', sendVoice: 'voice' };

export class FakeBotApi {
  readonly calls: RecordedCall[] = [];
  /** The webhook setWebhook set (undefined: none, polling). */
  webhook: { url: string; secret_token?: string } | undefined;
  private readonly queue: Record<string, unknown>[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly failures = new Map<string, FakeFailure[]>();
  private readonly blocked = new Set<number>();
  private readonly files = new Map<string, { path: string; bytes: Buffer }>();
  private readonly nextMessageId = new Map<number, number>();
  private nextUpdateId = 1;
  private server!: http.Server;
  url = '';

  constructor(readonly bot: { id: number; username: string; first_name?: string } = { id: 7000001, username: 'gateway_test_bot' }) {}

  /** The token a bot of this server uses (any secret part is accepted). */
  get token(): string {
    return `${this.bot.id}:test-secret-${this.bot.username}`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((request, response) => void this.handle(request, response));
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const wake of this.waiters) wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Queues an update for getUpdates (its update_id given when missing); returns it. */
  pushUpdate(update: Record<string, unknown>): Record<string, unknown> {
    const full = { update_id: this.nextUpdateId++, ...update };
    this.queue.push(full);
    for (const wake of this.waiters) wake();
    return full;
  }

  /** A private-chat text message update (a leading /command gets its bot_command entity, as Telegram sends it). */
  message(from: TelegramUserFixture, text: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
    return {
      update_id: this.nextUpdateId++,
      message: {
        message_id: this.allocateMessageId(from.id),
        date: Math.floor(Date.now() / 1000),
        chat: { id: from.id, type: 'private', first_name: from.first_name },
        from: { is_bot: false, ...from },
        text,
        ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
        ...extra,
      },
    };
  }

  /** A press of an inline button (callback_data `data`) under message `messageId`. */
  callback(from: TelegramUserFixture, data: string, messageId: number): Record<string, unknown> {
    return {
      update_id: this.nextUpdateId++,
      callback_query: {
        id: `cb${this.nextUpdateId}`,
        from: { is_bot: false, ...from },
        chat_instance: '1',
        data,
        message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: from.id, type: 'private' }, text: '' },
      },
    };
  }

  /** A file getFile will name, downloadable at /file/bot<token>/<path>. */
  addFile(fileId: string, bytes: Buffer, path = `files/${fileId}`): void {
    this.files.set(fileId, { path, bytes });
  }

  /** The next `count` calls of `method` fail with `failure`. */
  failNext(method: string, failure: FakeFailure, count = 1): void {
    const list = this.failures.get(method) ?? [];
    for (let index = 0; index < count; index++) list.push(failure);
    this.failures.set(method, list);
  }

  /** Every delivery to `chatId` is refused 403, as for a user who blocked the bot. */
  block(chatId: number): void {
    this.blocked.add(chatId);
  }

  unblock(chatId: number): void {
    this.blocked.delete(chatId);
  }

  /** The recorded calls of a method (all calls without one). */
  callsOf(method?: string, chatId?: number): RecordedCall[] {
    return this.calls.filter((call) => (method === undefined || call.method === method) && (chatId === undefined || Number(call.params.chat_id) === chatId));
  }

  private allocateMessageId(chatId: number): number {
    const id = this.nextMessageId.get(chatId) ?? 1;
    this.nextMessageId.set(chatId, id + 1);
    return id;
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (download && request.method === 'GET') {
      const file = [...this.files.values()].find((candidate) => candidate.path === download[2]);
      if (!file) response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.bytes.length }).end(file.bytes);
      return;
    }
    const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!call) {
      response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: false, error_code: 404, description: 'Not Found' }));
      return;
    }
    const [, token, method] = call as unknown as [string, string, string];
    let params: Record<string, unknown>;
    let files: RecordedCall['files'] = {};
    try {
      ({ params, files } = await readParameters(request, url));
    } catch (error) {
      this.answer(response, { ok: false, error_code: 400, description: `Bad Request: ${(error as Error).message}` });
      return;
    }
    if (!token.startsWith(`${this.bot.id}:`)) {
      this.answer(response, { ok: false, error_code: 401, description: 'Unauthorized' });
      return;
    }
    const recorded: RecordedCall = { method, token, params, files };
    this.calls.push(recorded);
    const failure = this.failures.get(method)?.shift();
    if (failure) {
      this.answer(response, (recorded.answer = { ok: false, ...failure }));
      return;
    }
    const chatId = Number(params.chat_id);
    if (deliveryMethods.has(method) && this.blocked.has(chatId)) {
      this.answer(response, (recorded.answer = { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' }));
      return;
    }
    if (method === 'getUpdates') {
      await this.getUpdates(params, request, response);
      return;
    }
    this.answer(response, (recorded.answer = { ok: true, result: this.result(method, params, chatId) }));
  }

  private result(method: string, params: Record<string, unknown>, chatId: number): unknown {
    const now = Math.floor(Date.now() / 1000);
    const chat = { id: chatId, type: 'private' };
    switch (method) {
      case 'getMe':
        return { id: this.bot.id, is_bot: true, first_name: this.bot.first_name ?? 'Gateway', username: this.bot.username, can_join_groups: false, can_read_all_group_messages: false, supports_inline_queries: false };
      case 'setWebhook':
        this.webhook = { url: String(params.url), ...(params.secret_token === undefined ? {} : { secret_token: String(params.secret_token) }) };
        return true;
      case 'deleteWebhook':
        this.webhook = undefined;
        return true;
      case 'sendMessage':
        return { message_id: this.allocateMessageId(chatId), date: now, chat, text: params.text };
      case 'editMessageText':
        return { message_id: Number(params.message_id), date: now, edit_date: now, chat, text: params.text };
      case 'sendChatAction':
      case 'answerCallbackQuery':
      case 'setMyCommands':
        return true;
      case 'getFile': {
        const file = this.files.get(String(params.file_id));
        return file ? { file_id: params.file_id, file_unique_id: `u${String(params.file_id)}`, file_size: file.bytes.length, file_path: file.path } : { file_id: params.file_id, file_unique_id: 'missing' };
      }
      default:
        if (method in mediaMethods) {
          const field = mediaMethods[method]!;
          return { message_id: this.allocateMessageId(chatId), date: now, chat, ...(params.caption === undefined ? {} : { caption: params.caption }), [field]: { file_id: `sent-${field}-${this.calls.length}` } };
        }
        return true;
    }
  }

  private async getUpdates(params: Record<string, unknown>, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const offset = Number(params.offset ?? 0);
    const timeoutMs = Number(params.timeout ?? 0) * 1000;
    const pending = () => {
      // Updates below the offset are confirmed: gone, as on Telegram.
      while (this.queue.length > 0 && Number(this.queue[0]!.update_id) < offset) this.queue.shift();
      return this.queue.slice(0, Number(params.limit ?? 100));
    };
    let ready = pending();
    if (ready.length === 0 && timeoutMs > 0) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, timeoutMs);
        this.waiters.add(wake);
        request.socket.once('close', wake);
      });
      ready = pending();
    }
    if (!response.destroyed) this.answer(response, { ok: true, result: ready });
  }

  private answer(response: http.ServerResponse, body: unknown): void {
    const status = (body as { ok: boolean; error_code?: number }).ok ? 200 : ((body as { error_code?: number }).error_code ?? 400);
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }
}

/** A call's parameters from its query, JSON, urlencoded or multipart body; JSON-looking form values are parsed (grammY sends objects that way). */
async function readParameters(request: http.IncomingMessage, url: URL): Promise<{ params: Record<string, unknown>; files: RecordedCall['files'] }> {
  const params: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const files: RecordedCall['files'] = {};
  const type = String(request.headers['content-type'] ?? '');
  if (type.startsWith('multipart/form-data')) {
    await new Promise<void>((resolve, reject) => {
      const parser = busboy({ headers: request.headers });
      parser.on('field', (name, value) => (params[name] = parseValue(value)));
      parser.on('file', (name, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => (files[name] = { filename: info.filename ?? "", bytes: Buffer.concat(chunks), mimeType: info.mimeType }));
        stream.on('error', reject);
      });
      parser.on('close', () => resolve());
      parser.on('error', reject);
      request.pipe(parser);
    });
    return { params, files };
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.length === 0) return { params, files };
  if (type.startsWith('application/json')) Object.assign(params, JSON.parse(text));
  else for (const [name, value] of new URLSearchParams(text)) params[name] = parseValue(value);
  return { params, files };
}

function parseValue(value: string): unknown {
  if (/^[[{]/.test(value) || /^-?\d+$/.test(value) || value === 'true' || value === 'false') {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}
