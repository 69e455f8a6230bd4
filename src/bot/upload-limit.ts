/** Telegram's limit on a file a bot uploads (sendVideo, sendAudio, sendDocument): larger ones go as download links. */
export const telegramUploadLimitBytes = 50 * 1024 * 1024;
