/**
 * SignalR JSON hub protocol framing (HubProtocol.md): every message is a JSON text followed by
 * the record separator 0x1E. Message types used by this server are listed in `MessageType`.
 */
export const RECORD_SEPARATOR = '\u001e';

export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
  Ack: 8,
  Sequence: 9,
} as const;

/** One framed record: JSON text + record separator. */
export function frame(message: object): string {
  return JSON.stringify(message) + RECORD_SEPARATOR;
}

export const PING_FRAME = frame({ type: MessageType.Ping });
export const HANDSHAKE_OK_FRAME = '{}' + RECORD_SEPARATOR;

export function handshakeErrorFrame(error: string): string {
  return frame({ error });
}

/** Close (type 7): `error` and `allowReconnect` are omitted when absent/false, as the .NET server does. */
export function closeFrame(error?: string, allowReconnect?: boolean): string {
  const message: { type: 7; error?: string; allowReconnect?: true } = { type: MessageType.Close };
  if (error !== undefined) message.error = error;
  if (allowReconnect === true) message.allowReconnect = true;
  return frame(message);
}

export function completionErrorFrame(invocationId: string, error: string): string {
  return frame({ type: MessageType.Completion, invocationId, error });
}

/** A non-blocking invocation of `target` (no invocationId: the client does not answer). */
export function invocationFrame(target: string, args: readonly unknown[], replacer?: (key: string, value: unknown) => unknown): string {
  return JSON.stringify({ type: MessageType.Invocation, target, arguments: args }, replacer) + RECORD_SEPARATOR;
}
