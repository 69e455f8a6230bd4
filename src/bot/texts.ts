// Everything the bot says, in Russian and English: one dictionary, the same keys in both (the
// type makes a missing translation a typecheck error). Texts are for customers: they never name
// a CLI command or a config field. Telegram HTML (parse_mode HTML): only what callers pass
// through `escapeHtml` may carry a customer's or a model's text.

export type BotLanguage = 'ru' | 'en';
export const botLanguages: readonly BotLanguage[] = ['ru', 'en'];

/** The user's language from Telegram's language_code: Russian for ru/uk/be/kk, else English. */
export function languageOf(languageCode: string | undefined): BotLanguage {
  return languageCode !== undefined && /^(ru|uk|be|kk)\b/i.test(languageCode) ? 'ru' : 'en';
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const en = {
  /** The command menu Telegram shows (setMyCommands). */
  menu: [
    { command: 'new', description: 'Start a new conversation' },
    { command: 'image', description: 'Draw a picture: /image <prompt>' },
    { command: 'video', description: 'Make a video: /video <prompt>' },
    { command: 'music', description: 'Make a song: /music <prompt>' },
    { command: 'models', description: 'Models and prices' },
    { command: 'settings', description: 'Model, language, prices' },
    { command: 'balance', description: 'Your balance' },
    { command: 'topup', description: 'Add money' },
    { command: 'history', description: 'Recent charges' },
    { command: 'help', description: 'What I can do' },
  ] as { command: string; description: string }[],
  welcome: (name: string) =>
    `Hello, ${escapeHtml(name)}! Write me anything and a model will answer.\n\n/new — start a new conversation\n/image &lt;prompt&gt; — a picture\n/video &lt;prompt&gt; — a video\n/music &lt;prompt&gt; — a song\n/models — models and prices\n/settings — model, language, prices\n/balance — your balance\n/topup — add money\n/history — recent charges\n/help — this list`,
  welcomeNew: (name: string) => `Welcome, ${escapeHtml(name)}! Your account is ready.`,
  help: '/new — start a new conversation\n/image <prompt> — a picture\n/video <prompt> — a video\n/music <prompt> — a song\n/models — models and prices\n/settings — model, language, prices\n/balance — your balance\n/topup — add money\n/history — recent charges\n/unlink — disconnect this Telegram from your account',
  notLinked: (cabinetUrl: string) =>
    `This Telegram is not connected to an account yet.\n\nSign in to your account at ${escapeHtml(cabinetUrl)}, open "Profile" and press "Connect Telegram", then follow the link it gives.`,
  signupRefused: 'New accounts cannot be opened here. Ask the service operator for an account, then connect Telegram from it.',
  linked: 'Telegram is now connected to your account. Write me anything to start.',
  linkInvalid: 'This link is not valid any more (it was used, or it expired). Make a new one in your account: "Connect Telegram".',
  linkTaken: 'This Telegram is already connected to another account. Disconnect it there first (/unlink here, or in that account).',
  unlinked: 'Telegram is disconnected from your account. Connect it again from your account whenever you like.',
  userDisabled: 'This account is disabled. Contact the service operator.',
  newConversation: 'Started a new conversation.',
  thinking: '…',
  reasoningFolded: 'Reasoning',
  answerFailed: 'The model could not answer this time. Nothing was charged for it; try again.',
  answerCut: '(the answer was cut short)',
  price: (rub: string) => `Cost: ${rub} ₽`,
  balance: (balance: string, held: string, available: string) => `Balance: <b>${balance} ₽</b>\nReserved for running requests: ${held} ₽\nAvailable: ${available} ₽`,
  insufficientBalance: (available: string) => `Not enough money for this request (available: ${available} ₽). /topup adds money.`,
  topupPick: 'How much to add?',
  topupLink: (amount: string, url: string) => `Pay ${amount} ₽: ${escapeHtml(url)}`,
  topupContact: (contact: string) => `To add money, contact ${escapeHtml(contact)}.`,
  topupUnavailable: 'Adding money from here is not available. Contact the service operator.',
  historyEmpty: 'No charges yet.',
  historyTitle: 'Recent charges:',
  modelsTitle: 'Models and prices (₽):',
  perMillionTokens: (input: string, output: string) => `${input} in / ${output} out per 1M tokens`,
  settingsTitle: (model: string, language: string, showPrice: boolean, spoken: boolean) =>
    `Settings\nModel: <b>${escapeHtml(model)}</b>\nLanguage: ${language}\nShow prices: ${showPrice ? 'on' : 'off'}\nSpoken replies: ${spoken ? 'on' : 'off'}`,
  chooseModel: 'Choose the model to chat with:',
  modelChosen: (model: string) => `Now chatting with ${escapeHtml(model)}.`,
  buttonModel: 'Model',
  buttonLanguage: 'Русский',
  buttonPrices: (on: boolean): string => (on ? 'Hide prices' : 'Show prices'),
  buttonSpoken: (on: boolean): string => (on ? 'Spoken replies: off' : 'Spoken replies: on'),
  languageName: 'English',
  somethingWrong: 'Something went wrong on our side. Please try again later.',
  busy: 'Too many requests right now. Please wait a minute and try again.',
  notAllowed: 'Your account does not allow this. Check the bot key in your account.',
};

export type BotTexts = typeof en;

const ru: BotTexts = {
  menu: [
    { command: 'new', description: 'Начать новый разговор' },
    { command: 'image', description: 'Нарисовать: /image <описание>' },
    { command: 'video', description: 'Снять видео: /video <описание>' },
    { command: 'music', description: 'Сочинить песню: /music <описание>' },
    { command: 'models', description: 'Модели и цены' },
    { command: 'settings', description: 'Модель, язык, цены' },
    { command: 'balance', description: 'Баланс' },
    { command: 'topup', description: 'Пополнить' },
    { command: 'history', description: 'Последние списания' },
    { command: 'help', description: 'Что я умею' },
  ],
  welcome: (name) =>
    `Здравствуйте, ${escapeHtml(name)}! Напишите что угодно, и модель ответит.\n\n/new — начать новый разговор\n/image &lt;описание&gt; — картинка\n/video &lt;описание&gt; — видео\n/music &lt;описание&gt; — песня\n/models — модели и цены\n/settings — модель, язык, цены\n/balance — баланс\n/topup — пополнить\n/history — последние списания\n/help — этот список`,
  welcomeNew: (name) => `Добро пожаловать, ${escapeHtml(name)}! Аккаунт создан.`,
  help: '/new — начать новый разговор\n/image <описание> — картинка\n/video <описание> — видео\n/music <описание> — песня\n/models — модели и цены\n/settings — модель, язык, цены\n/balance — баланс\n/topup — пополнить\n/history — последние списания\n/unlink — отвязать этот Telegram от аккаунта',
  notLinked: (cabinetUrl) =>
    `Этот Telegram ещё не привязан к аккаунту.\n\nВойдите в личный кабинет на ${escapeHtml(cabinetUrl)}, откройте «Профиль» и нажмите «Подключить Telegram», затем перейдите по ссылке.`,
  signupRefused: 'Новые аккаунты здесь не открываются. Попросите аккаунт у оператора сервиса и подключите к нему Telegram.',
  linked: 'Telegram подключён к вашему аккаунту. Напишите что-нибудь, чтобы начать.',
  linkInvalid: 'Эта ссылка больше не действует (уже использована или истекла). Создайте новую в кабинете: «Подключить Telegram».',
  linkTaken: 'Этот Telegram уже подключён к другому аккаунту. Сначала отвяжите его там (/unlink здесь или в том аккаунте).',
  unlinked: 'Telegram отвязан от аккаунта. Подключить снова можно в кабинете в любой момент.',
  userDisabled: 'Этот аккаунт отключён. Обратитесь к оператору сервиса.',
  newConversation: 'Начат новый разговор.',
  thinking: '…',
  reasoningFolded: 'Рассуждение',
  answerFailed: 'Модель не смогла ответить. За этот запрос ничего не списано; попробуйте ещё раз.',
  answerCut: '(ответ прерван)',
  price: (rub) => `Стоимость: ${rub} ₽`,
  balance: (balance, held, available) => `Баланс: <b>${balance} ₽</b>\nЗарезервировано под идущие запросы: ${held} ₽\nДоступно: ${available} ₽`,
  insufficientBalance: (available) => `Недостаточно средств для запроса (доступно: ${available} ₽). /topup — пополнить.`,
  topupPick: 'На какую сумму пополнить?',
  topupLink: (amount, url) => `Оплатить ${amount} ₽: ${escapeHtml(url)}`,
  topupContact: (contact) => `Чтобы пополнить баланс, напишите ${escapeHtml(contact)}.`,
  topupUnavailable: 'Пополнение отсюда недоступно. Обратитесь к оператору сервиса.',
  historyEmpty: 'Списаний пока нет.',
  historyTitle: 'Последние списания:',
  modelsTitle: 'Модели и цены (₽):',
  perMillionTokens: (input, output) => `${input} вход / ${output} выход за 1 млн токенов`,
  settingsTitle: (model, language, showPrice, spoken) =>
    `Настройки\nМодель: <b>${escapeHtml(model)}</b>\nЯзык: ${language}\nПоказывать цены: ${showPrice ? 'да' : 'нет'}\nГолосовые ответы: ${spoken ? 'да' : 'нет'}`,
  chooseModel: 'Выберите модель для разговора:',
  modelChosen: (model) => `Теперь отвечает ${escapeHtml(model)}.`,
  buttonModel: 'Модель',
  buttonLanguage: 'English',
  buttonPrices: (on) => (on ? 'Скрыть цены' : 'Показывать цены'),
  buttonSpoken: (on) => (on ? 'Голосовые ответы: выкл' : 'Голосовые ответы: вкл'),
  languageName: 'Русский',
  somethingWrong: 'Что-то пошло не так на нашей стороне. Попробуйте позже.',
  busy: 'Сейчас слишком много запросов. Подождите минуту и попробуйте снова.',
  notAllowed: 'Ваш аккаунт этого не разрешает. Проверьте ключ бота в кабинете.',
};

export const botTexts: Readonly<Record<BotLanguage, BotTexts>> = { ru, en };
