/** Whether an address only reaches this computer: what a phone or another machine cannot open. */
import { LOOPBACK_HOSTS } from '@live-captions/http/urls';

export function loopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || hostname.endsWith('.localhost') || /^127\./.test(hostname);
}
