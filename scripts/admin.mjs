// Shared by the operator scripts (ingest, warm-cache, evals, verify-audit).
import { readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The admin token: $ADMIN_TOKEN, else ADMIN_TOKEN= in .dev.vars; undefined if neither. */
export function adminToken() {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const devVars = join(ROOT, '.dev.vars');
  const line = existsSync(devVars) && readFileSync(devVars, 'utf8').split('\n').find((l) => l.startsWith('ADMIN_TOKEN='));
  return line ? line.slice('ADMIN_TOKEN='.length).trim() : undefined;
}
