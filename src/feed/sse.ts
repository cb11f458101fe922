// Server-Sent Events framing (HTML Living Standard §9.2, "Server-sent events"): a message is
// `field: value` lines ended by an empty line; a line starting with a colon is a comment.

export interface SseMessage {
  readonly event: string
  readonly id: number
  /** One line: JSON written without line breaks. */
  readonly data: string
}

export const sseMessage = ({ event, id, data }: SseMessage): string =>
  `event: ${event}\nid: ${id}\ndata: ${data}\n\n`

/** Ignored by clients; keeps proxies and idle timers from taking the connection for dead. */
export const sseComment = (text: string): string => `: ${text}\n\n`

/** How long an EventSource waits before it reconnects after the stream ends. */
export const sseRetry = (ms: number): string => `retry: ${ms}\n\n`
