// Voice (docs/bot.md, "Voice"). A voice message is downloaded (getFile, then the Bot API's file
// URL), transcribed by the default speech-to-text model (the transcriptions pipeline, as
// POST /v1/audio/transcriptions: charged per second of the audio), the transcript shown, and
// answered like a typed message (chat.ts). A user who switched spoken replies on (the settings'
// toggle, bot_users.spoken_replies) also gets the answer spoken: the default text-to-speech
// model (the speech pipeline, as POST /v1/audio/speech: charged per character) in Ogg Opus,
// sent with sendVoice — for typed messages too (chat.ts answers through answerAloud). Spoken text is the answer's first 4096 characters (the speech limit).
import { InputFile } from 'grammy';
import { speechBody, transcriptionFields } from '../../dialects/openai-media/audio.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { createSpeech, transcribe } from '../../pipeline/audio.js';
import { resolveMediaModel } from '../../pipeline/media.js';
import type { BotDeps, BotFeature, Person } from '../bot-app.js';
import { callAsBot } from '../bot-call.js';
import { isUserGone } from '../deliver.js';
import { mediaCaller } from '../media-caller.js';
import { mediaTexts } from '../media-texts.js';
import { refundUndelivered } from '../refund-undelivered.js';
import type { LinkedAccount } from '../telegram-link.js';
import { answer, refusalText } from './chat.js';

/** The longest voice message transcribed: the transcriptions pipeline's own limit (25 MB). */
const maxVoiceBytes = 25 * 1024 * 1024;
/** What speech takes at most per request. */
const maxSpokenCharacters = 4096;

export const voiceFeature: BotFeature = (bot, deps) => {
  bot.on('message:voice', async (ctx) => {
    const account = await deps.accountOf(ctx);
    if (!account) return;
    const person = ctx.person!;
    const { file_id: fileId, file_size: size } = ctx.message.voice;
    if (size !== undefined && size > maxVoiceBytes) {
      await ctx.reply(mediaTexts[person.settings.language].voiceUnreadable);
      return;
    }
    deps.background(ctx.chat.id, () => answerVoice(deps, person, account, ctx.chat.id, fileId));
  });
};

async function answerVoice(deps: BotDeps, person: Person, account: LinkedAccount, chatId: number, fileId: string): Promise<void> {
  const { services, api } = deps;
  const mt = mediaTexts[person.settings.language];
  const data = await download(deps, fileId);
  let text: string;
  try {
    ({ text } = await callAsBot(services, deps.keys, account.accountId, { route: '/v1/audio/transcriptions', scope: 'audio' }, async (call) => {
      const caller = mediaCaller(call, 'audio');
      const result = await transcribe(services, caller, transcriptionFields.parse({ response_format: 'text' }), { data, mediaType: 'audio/ogg', filename: 'voice.ogg' });
      return { chargedUnits: caller.log.chargedUnits, text: result.text.trim() };
    }));
  } catch (error) {
    // A file the pipeline cannot read is refused (422) before any hold.
    const unreadable = error instanceof GatewayError && error.status === 422;
    await api.sendMessage(chatId, unreadable ? mt.voiceUnreadable : await refusalText(deps, account, person.t, error));
    return;
  }
  if (text === '') {
    await api.sendMessage(chatId, mt.nothingHeard);
    return;
  }
  await api.sendMessage(chatId, mt.heard(text), { parse_mode: 'HTML' });
  await answerAloud(deps, person, account, chatId, text);
}

/** `text` answered in the chat (chat.ts), and the answer spoken when the user switched spoken replies on. */
export async function answerAloud(deps: BotDeps, person: Person, account: LinkedAccount, chatId: number, text: string): Promise<void> {
  const answered = await answer(deps, person, account, chatId, text);
  if (answered !== undefined && answered.trim() !== '' && person.settings.spokenReplies) await speak(deps, person, account, chatId, answered);
}

/** The voice message's bytes, from the Bot API's file URL. */
async function download(deps: BotDeps, fileId: string): Promise<Uint8Array> {
  const file = await deps.api.getFile(fileId);
  if (file.file_path === undefined) throw new Error(`the Bot API gave no path for file ${fileId}`);
  const response = await fetch(`${deps.config.apiUrl}/file/bot${deps.config.token}/${file.file_path}`);
  if (!response.ok) throw new Error(`the Bot API answered ${response.status} for a voice message's file`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The answer spoken (sendVoice); charged as speech, refunded when Telegram will not take it for a reason of its own. */
export async function speak(deps: BotDeps, person: Person, account: LinkedAccount, chatId: number, text: string): Promise<void> {
  const { services, api } = deps;
  let spoken;
  try {
    spoken = await callAsBot(services, deps.keys, account.accountId, { route: '/v1/audio/speech', scope: 'audio' }, async (call) => {
      const caller = mediaCaller(call, 'audio');
      const model = resolveMediaModel(services, undefined, ['tts']);
      const voice = model.config.capabilities.voices?.[0] ?? 'alloy';
      const { speech } = await createSpeech(services, caller, speechBody.parse({ model: model.id, input: text.slice(0, maxSpokenCharacters), voice, response_format: 'opus' }));
      return { chargedUnits: caller.log.chargedUnits, audio: speech.audio, requestId: call.requestId };
    });
  } catch (error) {
    // The written answer arrived; a reply that cannot also be spoken is only logged.
    services.logger.warn({ err: error }, 'a spoken reply could not be made');
    return;
  }
  try {
    await api.sendVoice(chatId, new InputFile(spoken.audio, 'reply.ogg'));
  } catch (error) {
    if (isUserGone(error)) {
      await deps.userGone(chatId);
      return;
    }
    services.logger.warn({ err: error, request_id: spoken.requestId }, 'a spoken reply could not be delivered: its charge is refunded');
    if (spoken.chargedUnits > 0n) await refundUndelivered(services, account.accountId, spoken.requestId);
  }
}
