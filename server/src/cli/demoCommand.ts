export async function demoCommand(_argv: readonly string[], _env: NodeJS.ProcessEnv): Promise<void> { throw new Error("demo: engine not available yet"); }
