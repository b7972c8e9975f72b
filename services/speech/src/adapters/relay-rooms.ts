import type { RelaySettings } from '@live-captions/protocol';
import { fetchCaptionRoom, relayHttpUrl } from '@live-captions/relay-client/node';
import { roomRelaySettings } from '../domain/relay-settings.js';

/** A caption room's relay settings, or undefined when the relay has none; throws a RoomsApiError. */
export type RoomSettingsLookup = (id: string) => Promise<RelaySettings | undefined>;

/**
 * Asks the relay's rooms API (`GET /rooms/:id`, at RELAY_URL's HTTP address, with the service
 * token) on each call: a room made a moment ago is found, a removed one is not. The answer's relay
 * address and links are the public ones of `relay-tokens.env` when the file is there.
 */
export function relayRoomsLookup(
  relay: { relayUrl: string; apiKey: string | undefined },
  file: RelaySettings | undefined,
): RoomSettingsLookup {
  const base = relayHttpUrl(relay.relayUrl);
  const where = { relayUrl: file?.relayUrl ?? relay.relayUrl, site: file?.site ?? null };
  return async (id) => {
    const room = await fetchCaptionRoom(base, relay.apiKey, id);
    return room && roomRelaySettings(room, where);
  };
}
