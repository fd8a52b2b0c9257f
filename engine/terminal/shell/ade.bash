# ade term: shell integration for bash (read with `bash --rcfile`, in place of ~/.bashrc).
#
# Your own ~/.bashrc runs first (bash reads its system-wide file itself, --rcfile or not, where it
# was built with one, as Debian's and Arch's are); then each prompt and
# command is wrapped in OSC 133 marks (A prompt, B typed, C output, D;<exit> done) and each
# prompt states the folder (OSC 7), so `ade term` records every command as a hit of its own with
# its exit code, folder and duration. The marks are invisible to the terminal.
[ -r ~/.bashrc ] && . ~/.bashrc

if [ -z "${__ade_marks:-}" ]; then
    __ade_marks=1

    # First in PROMPT_COMMAND, so $? is the command's; it returns it again for the rest.
    __ade_precmd() {
        local code=$?
        printf '\033]133;D;%s\007\033]7;file://%s%s\007' "$code" "${HOSTNAME:-}" "${PWD//%/%25}"
        return "$code"
    }

    # Last in PROMPT_COMMAND: a prompt command that rebuilds PS1 (starship, git prompts) ran.
    __ade_wrap_ps1() {
        local code=$?
        case "$PS1" in
            *'133;B'*) ;;
            *) PS1='\[\033]133;A\007\]'"$PS1"'\[\033]133;B\007\]' ;;
        esac
        return "$code"
    }

    PROMPT_COMMAND=$'__ade_precmd\n'"${PROMPT_COMMAND:-}"$'\n__ade_wrap_ps1'
    # Shown after a command line is read, before it runs (bash 4.4+): its output starts here.
    PS0="${PS0:-}"$'\033]133;C\007'
fi
