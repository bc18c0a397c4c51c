/** How a failed read is described: the error code and what it means. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'ENOENT: no such file';
    case 'EACCES':
    case 'EPERM':
      return `${code}: permission denied`;
    case 'EISDIR':
      return 'EISDIR: it is a directory';
    case undefined:
      return error instanceof Error ? error.message : String(error);
    default:
      return code;
  }
}
