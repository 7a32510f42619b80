#!/bin/sh
# A bot in plain shell: always plays the first legal action (docs/protocol.md).
while IFS= read -r line; do
  case "$line" in
    *'"type":"hello"'*) echo '{"type":"hello","protocol":1,"bot":"first-legal"}' ;;
    *'"type":"act"'*)
      action=$(printf '%s\n' "$line" | sed -n 's/.*"legal_actions":\["\([^"]*\)".*/\1/p')
      printf '{"type":"action","action":"%s"}\n' "$action" ;;
    *'"type":"shutdown"'*) exit 0 ;;
    *) echo '{"type":"ok"}' ;;
  esac
done
