import { Redis } from 'ioredis';
import pg from 'pg';
import { startPostgresCluster, startRedisServer } from '../src/index.js';

describe('private test servers', () => {
  it('runs redis-server on a free port, loses its data on restart (no persistence) and can be killed', async () => {
    const server = await startRedisServer();
    expect(server.port).not.toBe(6379);
    const client = new Redis(server.url, { maxRetriesPerRequest: 1, retryStrategy: () => 100 });
    try {
      await client.set('k', 'v');
      await server.stop();
      expect(server.running).toBe(false);
      await server.start();
      await expect(client.get('k')).resolves.toBeNull();
      await server.kill();
      await expect(client.ping()).rejects.toThrow();
    } finally {
      client.disconnect();
      await server.stop();
    }
  });

  it('runs a PostgreSQL cluster on a free port whose committed rows survive a restart', async () => {
    const cluster = await startPostgresCluster();
    try {
      expect(cluster.port).not.toBe(5432);
      const first = new pg.Client({ connectionString: cluster.url() });
      await first.connect();
      await first.query('CREATE TABLE t (v int); INSERT INTO t VALUES (42)');
      await first.end();
      await cluster.kill();
      await cluster.start();
      const second = new pg.Client({ connectionString: cluster.url() });
      await second.connect();
      const { rows } = await second.query('SELECT v FROM t');
      await second.end();
      expect(rows).toEqual([{ v: 42 }]);
    } finally {
      await cluster.destroy();
    }
  });
});
