import type { Lifecycle } from '@hapi/hapi';
import type { ValidationError } from 'joi';
import { validationFailed, type ErrorDetail } from '../../errors.js';

/** joi failures become 422 `validation_failed` with one detail per bad field (never hapi's 400). */
export const failValidation: Lifecycle.FailAction = (request, _h, error) => {
  const joiError = error as ValidationError | undefined;
  const source = (joiError as { output?: { payload?: { validation?: { source?: string } } } })?.output?.payload?.validation?.source;
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const detail of joiError?.details ?? []) {
    const path = detail.path.length ? detail.path.join('.') : (source ?? 'body');
    // One message per field: the first rule it broke is the one to fix.
    if (seen.has(path)) continue;
    seen.add(path);
    details.push({ path, message: detail.message.replace(/"/g, '') });
  }
  throw validationFailed(details.length ? details : [{ path: source ?? 'body', message: joiError?.message ?? 'invalid' }]);
};

export const VALIDATION_OPTIONS = { abortEarly: false, convert: true, errors: { wrap: { label: false } } } as const;
