export function buildOpenApiDocument(): Record<string, unknown> { return { openapi: "3.1.0" }; }
