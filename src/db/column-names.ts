/** Columns are snake_case in SQL and camelCase in code: `created_at` is `createdAt`. */
export const camelCase = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
