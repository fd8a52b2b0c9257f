# ade term: shell integration for zsh, step 1 (this folder is ZDOTDIR while zsh starts).
# Your own .zshenv runs as it would; ZDOTDIR stays ours so zsh reads our .zshrc next.
__ade_zdotdir=$ZDOTDIR
ZDOTDIR=${ADE_USER_ZDOTDIR:-$HOME}
[[ -r $ZDOTDIR/.zshenv ]] && source "$ZDOTDIR/.zshenv"
ZDOTDIR=$__ade_zdotdir
