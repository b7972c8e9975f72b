// Stops what jest.global-setup.mjs started; the cluster's data directory goes with it.
export default async function globalTeardown() {
  const services = globalThis.__testServices;
  if (!services) return;
  await Promise.allSettled([services.redis.stop(), services.postgres.destroy()]);
}
