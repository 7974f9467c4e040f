/**
 * Loaded (`--import`) into the cluster run's child test files: on SIGUSR2 it prints what keeps the
 * process alive, so a file that passes but never exits says why before it is killed.
 */
process.on('SIGUSR2', () => {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles().map((handle) => {
    const h = handle as { constructor?: { name?: string }; remoteAddress?: string; remotePort?: number; localPort?: number; pid?: number; spawnargs?: string[] };
    const name = h.constructor?.name ?? typeof handle;
    if (name === 'Socket') return `Socket to ${h.remoteAddress}:${h.remotePort} (local port ${h.localPort})`;
    if (name === 'ChildProcess') return `ChildProcess ${h.pid} ${h.spawnargs?.join(' ')}`;
    return name;
  });
  process.stderr.write(`\n# still alive, holding: ${JSON.stringify(process.getActiveResourcesInfo())}\n# handles: ${JSON.stringify(handles)}\n`);
});
