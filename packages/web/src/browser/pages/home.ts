/// <reference lib="dom" />
/** Landing page (no capture host configured): shows which relay this site uses. */
import { byId, siteConfig } from '../lib/dom.js';

const relay = siteConfig().relayUrl;
if (relay) byId('relay-address').textContent = relay;
