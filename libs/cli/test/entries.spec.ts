import * as main from '@vane/cli';
import * as api from '@vane/cli/api';

// An app runs the `vane` bin and imports nothing: the main entry is empty, the command's parts are
// the entry `@vane/cli/api`.
describe('@vane/cli entries', () => {
  it('the main entry exports nothing', () => {
    expect(Object.keys(main)).toEqual([]);
  });

  it('@vane/cli/api exports the command and its parts', () => {
    expect(Object.keys(api).sort()).toEqual([
      'CliError',
      'DEFAULT_TYPES_FILE',
      'HttpAuditSource',
      'readKeys',
      'renderDeclaration',
      'runCli',
      'runRefs',
      'runTypes',
    ]);
  });
});
