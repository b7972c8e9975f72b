/**
 * The warning of a publisher that shares its room (pure): the relay says how many write sockets
 * the room has (`joined.writers`, each ack's `writers`). Two capture pages, or a page and a stream
 * source, publishing into one room interleave their captions on the overlay and in the transcript,
 * which nobody notices until the audience does.
 */
export function sharedRoomWarning(writers: number, room: string): string | undefined {
  if (writers <= 1) return undefined;
  const others = writers - 1;
  return (
    `${others === 1 ? 'Another publisher is' : `${others} other publishers are`} writing into the room ` +
    `"${room}" too: their captions and these interleave. Close the other capture page, stop the ` +
    'stream source that uses this room, or give one of them its own room (links hub, Caption rooms).'
  );
}
