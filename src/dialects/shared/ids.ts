// Top-level response ids in each dialect's customary shape ("chatcmpl-…", "msg_…", "resp_…").
// The id the pipeline hands over is the upstream's (or the request id); SDKs never validate
// prefixes, but clients log and compare them, so the id stays recognisable and stable: the
// same input gives the same output in the stream and in the non-streamed body.

/** `id` itself when it already starts with `prefix`, else `prefix` + `id`. */
export function withIdPrefix(id: string, prefix: string): string {
  return id.startsWith(prefix) ? id : `${prefix}${id}`;
}
