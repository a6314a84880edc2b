import type { createRouteRegistrar } from '../http/routing';

export type Register = ReturnType<typeof createRouteRegistrar>;
