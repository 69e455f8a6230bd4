// One Server-Sent Events frame as the Responses SDK parsers expect it (wire-formats §8):
// a named event (the SDK keys on `data.type`, the name is for other clients) and one JSON line.
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
