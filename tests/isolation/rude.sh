#!/bin/sh
# A protocol bot that misbehaves at its first decision, as told by its argument:
#   double  - answers twice (the second line would be read as the next answer)
#   hangup  - closes its stdout and keeps running
#   signal  - kills itself with a signal Python has no name for
mode="$1"
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*) echo '{"type":"hello","protocol":1,"bot":"rude"}' ;;
    *'"type":"act"'*)
      action=$(printf '%s\n' "$line" | sed -n 's/.*"legal_actions":\["\([^"]*\)".*/\1/p')
      case "$mode" in
        double) printf '{"type":"action","action":"%s"}\n{"type":"action","action":"%s"}\n' "$action" "$action" ;;
        hangup) exec 1>&-; sleep 30 ;;
        signal) kill -40 $$ ;;
      esac ;;
    *'"type":"shutdown"'*) exit 0 ;;
    *) echo '{"type":"ok"}' ;;
  esac
done
