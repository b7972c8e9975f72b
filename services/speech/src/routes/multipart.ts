/**
 * `/v1` multipart bodies through multer (memory storage, bounded by its limits), with the 5 MiB
 * envelope and the 10 s upload deadline enforced on the raw stream while multer parses it.
 */
import type { Request, Response } from 'express';
import multer, { MulterError } from 'multer';
import { duplicateField, HttpError, Messages, unknownField } from '../domain/errors.js';
import { type BodyLimits, watchUpload } from './body.js';

const MAX_ENVELOPE_BYTES = 5 * 1024 * 1024;

const ignore = () => undefined;

const envelopeTooLarge = () => new HttpError(413, Messages.envelopeTooLarge, { param: 'file' });

export interface MultipartBody {
  /** Text fields; a name sent twice is refused before this is returned. */
  fields: Record<string, string>;
  /** Fields named in `lists` (sent as `name[]`, any number of times), by name without `[]`. */
  lists: Record<string, string[]>;
  file: Express.Multer.File | undefined;
}

const multerLimits: multer.Options['limits'] = {
  fileSize: MAX_ENVELOPE_BYTES,
  // Two, so a second file part is reported by name (duplicate `file` or an unknown field).
  files: 2,
  fields: 16,
  fieldSize: 16 * 1024,
  fieldNameSize: 100,
  parts: 24,
};

function fromMulter(error: unknown): Error {
  if (!(error instanceof MulterError)) {
    return error instanceof HttpError ? error : new HttpError(400, Messages.badMultipart, { param: 'file' });
  }
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return envelopeTooLarge();
    case 'LIMIT_UNEXPECTED_FILE':
      return new HttpError(
        400,
        error.field === 'file' ? duplicateField('file') : unknownField(error.field ?? ''),
        {
          param: error.field ?? null,
        },
      );
    case 'LIMIT_FILE_COUNT':
      return new HttpError(400, duplicateField('file'), { param: 'file' });
    default:
      return new HttpError(400, `${Messages.badMultipart}: ${error.message}`, { param: error.field ?? null });
  }
}

/** Parses the multipart body; rejects with the contract's HttpErrors (or ClientGone). */
export function readMultipart(
  req: Request,
  res: Response,
  limits: Pick<BodyLimits, 'timeoutMs'>,
  listNames: ReadonlySet<string> = new Set(),
): Promise<MultipartBody> {
  const bodyLimits = { ...limits, maxBytes: MAX_ENVELOPE_BYTES, tooLarge: envelopeTooLarge };
  // Refused before multer sees the request: an announced oversize body is not worth parsing
  // (watchUpload refuses it at once, draining it as the connection needs).
  if (Number(req.headers['content-length']) > MAX_ENVELOPE_BYTES) {
    return watchUpload(req, res, bodyLimits, ignore, ignore).then(() => Promise.reject(envelopeTooLarge()));
  }
  return new Promise<MultipartBody>((resolve, reject) => {
    const upload = multer({
      storage: multer.memoryStorage(),
      limits: multerLimits,
      // Feed busboy ourselves so the envelope size and the deadline are watched on the raw bytes.
      streamHandler: (request: Request, busboy: NodeJS.WritableStream) => {
        watchUpload(req, res, bodyLimits, ignore, () => request.pipe(busboy)).catch(reject);
      },
    } as multer.Options).single('file');

    upload(req, res, (error?: unknown) => {
      if (error) return reject(fromMulter(error));
      const fields: Record<string, string> = {};
      const lists: Record<string, string[]> = {};
      for (const [name, value] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
        // multer parses `name[]` into an array under `name`; one plain `name` is a list of one.
        if (listNames.has(name) && (typeof value === 'string' || Array.isArray(value))) {
          const items = typeof value === 'string' ? [value] : value;
          if (items.every((item) => typeof item === 'string')) {
            lists[name] = items as string[];
            continue;
          }
        }
        if (typeof value !== 'string') {
          const message = Array.isArray(value) ? duplicateField(name) : unknownField(name);
          return reject(new HttpError(400, message, { param: name }));
        }
        fields[name] = value;
      }
      resolve({ fields, lists, file: req.file });
    });
  });
}
