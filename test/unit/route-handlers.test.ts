import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

// Sources are read from the repository (tests run from its root), not from dist/.
const ROOT = process.cwd();

/**
 * Route handlers say what they need (#32 item 4): every `handler:` of a route file under
 * src/api/<folder>/ is made by src/api/handler.ts (or `cacheableStorefrontGet`, which is one), and
 * takes `{ ctx, storeId, actor, params, payload, query }` from its call instead of reading them off
 * the request. Plumbing that is not a route handler (src/api/*.ts, src/api/plugins/) is not held to it.
 */
const HANDLER_MAKERS = ['adminHandler', 'storefrontHandler', 'userHandler', 'publicHandler', 'cacheableStorefrontGet'];

const FORBIDDEN: Array<[RegExp, string]> = [
  [/request\.server\.app\.ctx/, 'request.server.app.ctx (the call has ctx; outside a handler, contextOf(request))'],
  [/\b(?:tenantOf|storefrontOf|userIdOf)\(/, 'tenantOf/storefrontOf/userIdOf (the call has storeId, actor, tokenId, userId)'],
  [/\brequest\.(?:params|payload|query)\b/, 'request.params/payload/query (the call has them, typed)'],
  [/\bparams\.\w+ as string\b/, 'a param cast `as string` (type the params instead)']
];

/** A route's `handler:` option (at the start of a line or inside `{ … }`), and what makes it. */
const HANDLER_OPTION = /(?:^|[{,])\s*handler:\s*(\w+)/m;

function routeFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'plugins' ? [] : routeFiles(rel);
    // Only files in a folder under src/api/: the top-level files are plumbing.
    return dir !== 'src/api' && entry.name.endsWith('.ts') ? [rel] : [];
  }).filter((file) => HANDLER_OPTION.test(readFileSync(path.join(ROOT, file), 'utf8')));
}

/** What is wrong with a route file's source, one line per finding. */
export function handlerFindings(file: string, source: string): string[] {
  const findings: string[] = [];
  source.split('\n').forEach((line, index) => {
    const where = `${file}:${index + 1}`;
    for (const [pattern, what] of FORBIDDEN) if (pattern.test(line)) findings.push(`${where} reads ${what}`);
    const handler = HANDLER_OPTION.exec(line);
    if (handler && !HANDLER_MAKERS.includes(handler[1]!)) findings.push(`${where} handler is ${handler[1]}(…), not one of ${HANDLER_MAKERS.join(', ')}`);
  });
  return findings;
}

t.test('every route handler under src/api/<folder>/ takes its call from src/api/handler.ts', async (t) => {
  const files = routeFiles('src/api');
  t.ok(files.length >= 40, `found the route files (${files.length})`);
  t.ok(files.includes('src/api/admin-products/routes.ts') && files.includes('src/api/storefront/product-routes.ts'), 'admin and storefront route files are checked');
  const findings = files.flatMap((file) => handlerFindings(file, readFileSync(path.join(ROOT, file), 'utf8')));
  t.same(findings, [], 'no handler fishes its context, tenant or input out of the request');
});

t.test('the check catches the old style', async (t) => {
  const old = [
    '    handler: async (request) => {',
    '      const ctx = request.server.app.ctx;',
    '      return getOrder(ctx, tenantOf(request).storeId, request.params.orderId as string);',
    '    }'
  ].join('\n');
  const findings = handlerFindings('old.ts', old);
  t.match(findings.join('\n'), /old\.ts:1 handler is async/);
  t.match(findings.join('\n'), /old\.ts:2 reads request\.server\.app\.ctx/);
  t.match(findings.join('\n'), /old\.ts:3 reads tenantOf/);
  t.match(findings.join('\n'), /old\.ts:3 reads request\.params/);
  t.same(handlerFindings('new.ts', "    handler: adminHandler<{ orderId: string }>(({ ctx, storeId, params }) => getOrder(ctx, storeId, params.orderId))"), []);
});
