# ade term: shell integration for zsh, step 2: your own .zshrc, then OSC 133 prompt marks
# (A prompt, B typed, C output, D;<exit> done) and the folder (OSC 7) at each prompt, so
# `ade term` records every command as a hit of its own with its exit code, folder and duration.
ZDOTDIR=${ADE_USER_ZDOTDIR:-$HOME}
unset ADE_USER_ZDOTDIR __ade_zdotdir
[[ -r $ZDOTDIR/.zshrc ]] && source "$ZDOTDIR/.zshrc"

if [[ -z ${__ade_marks:-} ]]; then
    __ade_marks=1
    __ade_ran=

    __ade_precmd() {
        local code=$?
        [[ -n $__ade_ran ]] && printf '\033]133;D;%s\007' "$code"
        __ade_ran=
        printf '\033]7;file://%s%s\007' "${HOST:-}" "${PWD//\%/%25}"
        return $code
    }

    # Last among the precmd hooks: one that rebuilds PS1 (a theme) has run.
    __ade_wrap_ps1() {
        [[ $PS1 == *'133;B'* ]] || PS1=$'%{\033]133;A\007%}'"$PS1"$'%{\033]133;B\007%}'
    }

    __ade_preexec() {
        __ade_ran=1
        printf '\033]133;C\007'
    }

    # First among the precmd hooks, so $? is the command's.
    precmd_functions=(__ade_precmd "${precmd_functions[@]}" __ade_wrap_ps1)
    preexec_functions+=(__ade_preexec)
fi
