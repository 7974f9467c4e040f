const pascal = (words: string) =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/**
 * A stable operationId from the method and the path (what a client generator names its methods by):
 * `GET /api/v1/admin/orders/{orderId}/fulfillments` is `getAdminOrdersByOrderIdFulfillments`. A
 * route's own `options.id` (which hapi keeps unique) takes precedence.
 */
export function operationIdFor(method: string, path: string, routeId?: string): string {
  if (routeId) return routeId;
  const segments = path
    .replace(/^\/api\/v1(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(\w+)\*?\w*\??\}$/.exec(segment);
      return param ? `By${pascal(param[1]!)}` : pascal(segment);
    });
  return method.toLowerCase() + segments.join('');
}
