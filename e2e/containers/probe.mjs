// Runs inside a container on the stack's edge network - at Traefik's fixed address when the test
// plays Traefik - and sends the HTTP requests given as JSON in argv[2], printing the answers as
// JSON. Node built-ins only (the container is the plain node base image). A request with
// `bodyBase64` sends those bytes; an answer to an Upgrade (101) is reported like any other.
import { request } from 'node:http';

const TIMEOUT_MS = 20_000;

function send({ method = 'GET', url, headers = {}, body, bodyBase64 }) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode, headers: res.headers, body: '' });
    });
    req.on('error', reject);
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer from ${url} within ${TIMEOUT_MS} ms`)));
    req.end(bodyBase64 === undefined ? body : Buffer.from(bodyBase64, 'base64'));
  });
}

const answers = [];
for (const item of JSON.parse(process.argv[2] ?? '[]')) {
  try {
    answers.push(await send(item));
  } catch (error) {
    answers.push({ status: 0, headers: {}, body: '', error: String(error) });
  }
}
process.stdout.write(JSON.stringify(answers));
