import type { Plugin } from '@hapi/hapi';

/** One line per request: method, route, status, duration and request id; never headers or bodies. */
export const requestLogPlugin: Plugin<void> = {
  name: 'shopwright-request-log',
  register(server) {
    const log = server.app.ctx.log;
    if (!log.isLevelEnabled('info')) return;
    server.events.on('response', (request) => {
      const response = request.response as { statusCode?: number } | null;
      log.info(
        {
          requestId: request.info.id,
          method: request.method.toUpperCase(),
          route: request.route.path,
          status: response?.statusCode,
          ms: Date.now() - request.info.received
        },
        'request'
      );
    });
  }
};
