import type { Command } from 'commander';

/** Each command's path (`''`, `'keys'`, `'keys create'`) with the words that may follow it. */
function completionTable(command: Command, path = ''): [string, string[]][] {
  const words = [
    ...command.commands.map((sub) => sub.name()),
    ...command.options.flatMap((option) => (option.long === undefined ? [] : [option.long])),
    '--help',
  ];
  return [[path, words], ...command.commands.flatMap((sub) => completionTable(sub, path === '' ? sub.name() : `${path} ${sub.name()}`))];
}

/**
 * A bash completion script generated from the command tree (commander has none of its own): the
 * words typed so far that name a subcommand make the path, and the path's subcommands and options
 * are offered. `source <(waymark completion)`; zsh after `autoload -U bashcompinit && bashcompinit`.
 */
export function bashCompletion(program: Command): string {
  const name = program.name();
  const cases = completionTable(program)
    .map(([path, words]) => `    '${path}') echo '${words.join(' ')}' ;;`)
    .join('\n');
  return `# ${name} completion for bash: source <(${name} completion bash)
_${name}_words() {
  case "$1" in
${cases}
  esac
}
_${name}() {
  local path="" word i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if [[ "$word" != -* && " $(_${name}_words "$path") " == *" $word "* ]]; then path="\${path:+$path }$word"; fi
  done
  mapfile -t COMPREPLY < <(compgen -W "$(_${name}_words "$path")" -- "\${COMP_WORDS[COMP_CWORD]}")
}
complete -F _${name} ${name}
`;
}
