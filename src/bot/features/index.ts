// The bot's features, in the order their handlers are tried: commands first, plain text
// (chat) last, since it takes any text. A new feature (its own file here) is added to this list
// before chat.
import type { BotFeature } from '../bot-app.js';
import { accountFeature } from './account.js';
import { chatFeature } from './chat.js';
import { mediaFeature } from './media.js';
import { settingsFeature } from './settings.js';
import { startFeature } from './start.js';
import { voiceFeature } from './voice.js';

export const botFeatures: readonly BotFeature[] = [startFeature, accountFeature, settingsFeature, mediaFeature, voiceFeature, chatFeature];
