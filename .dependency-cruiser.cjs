/**
 * The code's shape, checked by `npm run lint` (dependency-cruiser). CONTRIBUTING.md explains the
 * layers; every rule here is an error, and the lint passes only with none broken.
 *
 *   api / workers ──> use-cases ──> services (domain modules) ──> platform ──> adapters, db
 *        └───────────────┴──────────────┴──> jobs (declarations: name, queue, payload schema, options, schedule)
 *
 * Type-only imports count like any other (a type loop is still a loop to a reader).
 */
// What package.json's scripts and the Procfile run, plus tests, benches and migrations.
const ENTRY_POINTS = ['^src/start\\.ts$', '^src/api/index\\.ts$', '^src/workers/index\\.ts$', '^src/db/migrate\\.ts$', '^test/', '^bench/', '^migrations/'];
const LAYERS = '^src/(api|use-cases|services|platform|db|jobs|workers|adapters)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A loop means two files cannot be understood (or changed) one without the other. Hand the dependency over (on the context) instead.',
      from: {},
      to: { circular: true }
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'A source file nothing imports is dead code: delete it.',
      from: { orphan: true, pathNot: ['\\.d\\.ts$', '(^|/)\\.[^/]+\\.(c|m)?js$', '^test/setup/', '^bench/[^/]+\\.ts$', '^test/.+\\.test\\.ts$', '^migrations/'] },
      to: {}
    },
    {
      name: 'no-unreachable-source',
      severity: 'error',
      comment: 'Every file under src/ is reached from a process entry point, a test, a bench or a migration.',
      from: { path: ENTRY_POINTS },
      to: { path: '^src/', pathNot: ENTRY_POINTS, reachable: false }
    },
    {
      name: 'db-is-the-bottom',
      severity: 'error',
      comment: 'src/db/ (connections, statements, transactions) knows nothing of the layers above it.',
      from: { path: '^src/db/' },
      to: { path: '^src/(api|use-cases|services|platform|jobs|workers|adapters)/' }
    },
    {
      name: 'jobs-are-declarations',
      severity: 'error',
      comment: 'A job declaration (src/jobs/) is what producers and workers share: it imports no service, worker, route or table. Its processor lives in src/workers/processors/.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(api|use-cases|services|platform|db|workers)/' }
    },
    {
      name: 'use-cases-below-api-and-workers',
      severity: 'error',
      comment: 'A use case (src/use-cases/) is called by routes and workers; it calls the modules, never a route or a worker.',
      from: { path: '^src/use-cases/' },
      to: { path: '^src/(api|workers)/' }
    },
    {
      name: 'services-below-use-cases',
      severity: 'error',
      comment: 'Domain modules are called by use cases, routes and workers, never the other way round.',
      from: { path: '^src/services/' },
      to: { path: '^src/(api|workers|use-cases)/' }
    },
    {
      name: 'platform-below-modules',
      severity: 'error',
      comment: 'The platform (outbox, domain events, cache, Liquid, transactions, pagination, secrets, the module registry) serves every module and knows none of them.',
      from: { path: '^src/platform/' },
      to: { path: '^src/(api|workers|use-cases|services)/' }
    },
    {
      name: 'api-through-services',
      severity: 'error',
      comment: 'Routes call services; they do not query tables or run workers.',
      from: { path: '^src/api/' },
      to: { path: '^src/(db|workers)/' }
    },
    {
      name: 'workers-through-services',
      severity: 'error',
      comment: 'A processor calls a service; it does not query tables or reach into routes.',
      from: { path: '^src/workers/' },
      to: { path: '^src/(api|db)/' }
    },
    {
      name: 'adapters-are-ports',
      severity: 'error',
      comment: 'An adapter (src/adapters/) implements an outside-world port (queue, cache, pub/sub, rate limit, payments, mail, storage) and knows no business rule.',
      from: { path: '^src/adapters/' },
      to: { path: '^src/(api|use-cases|services|platform|jobs|workers)/' }
    },
    {
      name: 'module-through-its-face',
      severity: 'error',
      comment: 'A domain module (a folder under src/services/) is entered only through its index.ts, the functions, types and events it offers; its other files are private to it. (Tests may reach inside.)',
      from: { path: '^src/services/([^/]+)/' },
      to: { path: '^src/services/[^/]+/', pathNot: ['^src/services/$1/', '^src/services/[^/]+/index\\.ts$'] }
    },
    {
      name: 'modules-through-their-faces',
      severity: 'error',
      comment: 'Routes, workers, use cases and the composition files reach a module through its index.ts only.',
      from: { path: '^src/', pathNot: '^src/services/' },
      to: { path: '^src/services/[^/]+/', pathNot: '^src/services/[^/]+/index\\.ts$' }
    },
    {
      name: 'vendor-sdks-in-adapters',
      severity: 'error',
      comment: 'Stripe, nodemailer and ioredis are reached through a port (src/adapters/payments, mail, redis) that createContext builds once and services find on the context.',
      from: { path: '^src/', pathNot: '^src/adapters/' },
      to: { path: 'node_modules/(stripe|nodemailer|ioredis)/' }
    },
    {
      name: 'kernel-below-layers',
      severity: 'error',
      comment: 'config, errors, logger, lifecycle and time-limit are used by every layer and import none.',
      from: { path: '^src/(config|errors|logger|lifecycle|time-limit)\\.ts$' },
      to: { path: LAYERS }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The vendor SDKs are included (not followed) so that vendor-sdks-in-adapters sees who imports them.
    includeOnly: '^(src|test|bench|migrations)/|node_modules/(stripe|nodemailer|ioredis)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
    reporterOptions: { text: { highlightFocused: true } }
  }
};
