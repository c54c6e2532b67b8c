# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_policyctl_global_optspecs
    string join \n color= q/quiet v/verbose config= h/help V/version
end

function __fish_policyctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_policyctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_policyctl_using_subcommand
    set -l cmd (__fish_policyctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c policyctl -n "__fish_policyctl_needs_command" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_needs_command" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_needs_command" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_needs_command" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_needs_command" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_needs_command" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "compute" -d 'Print the objects the operator would generate (WasmPlugin/EnvoyFilter, Limitador, AuthConfigs, ...)'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "diff" -d 'Show what would change: generated objects against current ones, or between two input trees'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "graph" -d 'Draw the topology (DOT, Mermaid or JSON), policies included'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "status" -d 'Predict every policy\'s Accepted and Enforced conditions'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "explain" -d 'Explain, for each path through a target, which policy rule won and why'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "lint" -d 'Report every diagnostic: schema and CEL validation, references, merge outcomes'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "audit" -d 'Audit coverage: paths without authentication or rate limiting, limits that never decide, shared counters; with --base, what a change takes away'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "simulate" -d 'Trace a request through gateway, route, wasm actions, AuthConfig and Limitador'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "test" -d 'Run test cases (requests and expected verdicts) against the simulated estate'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "watch" -d 'Watch the input files: recompute on every change and print what changed (objects, status, findings); keep --out-dir in sync'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "completions" -d 'Print shell completions'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "version" -d 'Print policyctl\'s version, the operator releases it emulates and what they ship'
complete -c policyctl -n "__fish_policyctl_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l diagnostics-format -d 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it' -r -f -a "text\t'For people: the graphical report (one line each with -q)'
json\t'`{"diagnostics": [...], "summary": {...}}`'
github\t'GitHub Actions workflow annotations'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l diagnostics-file -d 'Write the diagnostics to FILE instead of stderr' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -s o -l output -d 'Output format: yaml (multi-document, kubectl style) or json (a v1 List)' -r -f -a "yaml\t''
json\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l only -d 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension' -r -f -a "wasm\t''
envoyfilter\t''
limitador\t''
authconfig\t''
envoygateway\t''
certificate\t''
dnsrecord\t''
extension\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l gateway -d 'Only paths through this gateway' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l wasm-sha256 -d 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l wasm-image -d 'wasm-shim image (default: the image of the emulated operator release)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l kuadrant-namespace -d 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l istio-controller-names -d 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l envoy-gateway-controller-names -d 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l out-dir -d 'Write one file per object into this folder (atomically), prune files generated earlier that are no longer desired, and report created / updated / unchanged / pruned. Files without policyctl\'s marker line are never touched' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l lock-timeout -d 'With --out-dir: seconds to wait for another policyctl run writing the same folder to finish (0: do not wait) [default: 300]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l fail-on -d 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]' -r -f -a "error\t''
warning\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -l check -d 'With --out-dir: write nothing; exit 1 and list what is stale'
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c policyctl -n "__fish_policyctl_using_subcommand compute" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l diagnostics-format -d 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it' -r -f -a "text\t'For people: the graphical report (one line each with -q)'
json\t'`{"diagnostics": [...], "summary": {...}}`'
github\t'GitHub Actions workflow annotations'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l diagnostics-file -d 'Write the diagnostics to FILE instead of stderr' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l against -d 'Current objects: a file, a folder (e.g. `compute --out-dir` output), or - for stdin (e.g. a `kubectl get … -o yaml` dump). Only Kuadrant-managed objects, the Limitador CR and the operator\'s Certificates and DNSRecords are compared' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l base -d 'Another input tree (e.g. the pull request\'s base): compute both and compare the outputs' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -s o -l output -d 'Output: unified (default), stat, json or markdown (a pull-request comment)' -r -f -a "unified\t''
stat\t''
json\t''
markdown\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l context -d 'Lines of context in unified diffs' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l only -d 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension' -r -f -a "wasm\t''
envoyfilter\t''
limitador\t''
authconfig\t''
envoygateway\t''
certificate\t''
dnsrecord\t''
extension\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l gateway -d 'Only paths through this gateway' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l wasm-sha256 -d 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l wasm-image -d 'wasm-shim image (default: the image of the emulated operator release)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l kuadrant-namespace -d 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l istio-controller-names -d 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l envoy-gateway-controller-names -d 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c policyctl -n "__fish_policyctl_using_subcommand diff" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l diagnostics-format -d 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it' -r -f -a "text\t'For people: the graphical report (one line each with -q)'
json\t'`{"diagnostics": [...], "summary": {...}}`'
github\t'GitHub Actions workflow annotations'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l diagnostics-file -d 'Write the diagnostics to FILE instead of stderr' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -s o -l output -d 'Output format' -r -f -a "dot\t''
mermaid\t''
json\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l compat -d 'Print DOT exactly as another tool does (only with -o dot)' -r -f -a "policy-machinery\t'Byte-compatible with the operator\'s `topology` ConfigMap (policy-machinery `ToDot()`)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l for -d 'Draw only this object, its ancestors, descendants and the policies attached to any of them: KIND/NAMESPACE/NAME (gatewayclass/NAME for classes; listener/NS/GATEWAY#LISTENER for a listener)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l fail-on -d 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]' -r -f -a "error\t''
warning\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c policyctl -n "__fish_policyctl_using_subcommand graph" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l diagnostics-format -d 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it' -r -f -a "text\t'For people: the graphical report (one line each with -q)'
json\t'`{"diagnostics": [...], "summary": {...}}`'
github\t'GitHub Actions workflow annotations'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l diagnostics-file -d 'Write the diagnostics to FILE instead of stderr' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -s o -l output -d 'Output: table, wide (adds reasons, overriding policies, paths), yaml (the policies as written with predicted status.conditions, multi-document) or json (a kubectl List)' -r -f -a "table\t''
wide\t''
yaml\t''
json\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l fail-on -d 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]' -r -f -a "error\t''
warning\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l respect-status -d 'Read listener and route readiness from the objects\' status instead of assuming it'
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l routes -d 'Show the routes instead of the policies: the kuadrant.io/<Kind>Affected conditions the operator writes on each HTTPRoute/GRPCRoute parent Gateway (table: one row per condition; yaml/json: the routes as written with the predicted status.parents entries)'
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -l gateways -d 'Show the Gateways instead of the policies: the kuadrant.io/<Kind>Affected conditions the operator writes on each Gateway and on each of its listeners (table: one row per condition, LISTENER `-` for the Gateway\'s own; yaml/json: the Gateways as written with the predicted status.conditions and status.listeners)'
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c policyctl -n "__fish_policyctl_using_subcommand status" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l diagnostics-format -d 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it' -r -f -a "text\t'For people: the graphical report (one line each with -q)'
json\t'`{"diagnostics": [...], "summary": {...}}`'
github\t'GitHub Actions workflow annotations'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l diagnostics-file -d 'Write the diagnostics to FILE instead of stderr' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l kind -d 'Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -s o -l output -d 'Output: text (a tree), yaml or json' -r -f -a "text\t''
yaml\t''
json\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l fail-on -d 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]' -r -f -a "error\t''
warning\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c policyctl -n "__fish_policyctl_using_subcommand explain" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -s o -l output -d 'Output format: text, json, github (workflow annotations), sarif (SARIF 2.1.0) or junit (JUnit XML)' -r -f -a "text\t'For people: the graphical report (one line each with -q)'
json\t'`{"diagnostics": [...], "summary": {...}}`'
github\t'GitHub Actions workflow annotations'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l fail-on -d 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]' -r -f -a "error\t''
warning\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c policyctl -n "__fish_policyctl_using_subcommand lint" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l diagnostics-format -d 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it' -r -f -a "text\t'For people: the graphical report (one line each with -q)'
json\t'`{"diagnostics": [...], "summary": {...}}`'
github\t'GitHub Actions workflow annotations'
sarif\t'SARIF 2.1.0, for GitHub code scanning and other SARIF viewers'
junit\t'JUnit XML: one test case per object checked (Jenkins, GitLab, Azure Pipelines)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l diagnostics-file -d 'Write the diagnostics to FILE instead of stderr' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -s o -l output -d 'Output: table, json, markdown (a pull-request comment) or sarif (the findings)' -r -f -a "table\t'One line per path (its hostnames together), the summary, then the findings'
json\t'`{"coverage": [...], "findings": [...], "summary": {...}, "change": {...}}`'
markdown\t'A pull-request comment (with --base: what the change does first)'
sarif\t'The findings as SARIF 2.1.0, as `lint -o sarif`'"
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l require -d 'Make a path without this protection a finding, and the exit code 1 (comma-separated: auth, ratelimit)' -r -f -a "auth\t'Every path authenticated (PCTL6001 otherwise)'
ratelimit\t'Every path rate limited (PCTL6002 otherwise)'"
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l base -d 'Another input tree (e.g. the pull request\'s base): audit both and say what the change does to coverage and findings' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l fail-on -d 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]. Findings of --require always do' -r -f -a "error\t''
warning\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c policyctl -n "__fish_policyctl_using_subcommand audit" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l requests -d 'Play a timed list of requests from FILE (- for stdin): a YAML list or JSON Lines, each entry a url and optionally at/after, method, headers, identity, source, tokens, count, interval. -X, -H, --identity, --source and --tokens apply to every entry that does not say otherwise' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s X -l request -d 'The request method' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s H -l header -d 'A request header, \'Name: value\'. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l identity -d 'What Authorino would put under auth.identity: JSON, or @FILE holding it' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l source -d 'The client\'s address (source.address, source.port): ADDRESS[:PORT]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l tokens -d 'Token usage reported after each response, for TokenRateLimitPolicies: the response\'s usage.total_tokens (without it, or --response-body, token counters become undecided)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l response-body -d 'The upstream response\'s JSON body, which responseBodyJSON reads (token usage): JSON, or @FILE holding it' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l assume -d 'State the outcome of a rule that needs a live server: SECTION/NAME=VALUE, SECTION one of authentication, authorization, metadata; VALUE true, false or JSON (an identity, a metadata object). Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l jwks -d 'A JWKS document (JSON, {"keys": [...]}) JWT signatures are verified against, for the issuerUrl or jwksUrl URL names, or for every JWT rule without one of its own. Without it a JWT\'s claims are decoded and its signature is not verified. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l connect-to -d 'As curl: send a request for HOST1:PORT1 to HOST2:PORT2 (empty parts: any host or port, or unchanged), e.g. localhost:9081::80 for a port-forward to the gateway\'s port 80. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l count -d 'Send the request N times (at most --max-requests)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l interval -d 'Time between two requests of --count (e.g. 500ms, 1s) [default: 0, all at one instant]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l gateway -d 'The gateway (NAMESPACE/NAME) to send to when several listen on the URL\'s port' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s o -l output -d 'Output: text (a tree for one request, a line per request for several) or json' -r -f -a "text\t''
json\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l cel-cost-limit -d 'The most one evaluation of a CEL expression or a Rego policy may cost (cel-go\'s cost units; regorus\'s work units for Rego) before the run stops with PCTL5013' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l request-cost-limit -d 'The most every evaluation of one simulated request may cost together before the run stops with PCTL5013' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l max-requests -d 'The most requests one run simulates (counts included); more is PCTL5014' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand simulate" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -s o -l output -d 'Output: text (a line per case and a summary) or junit (XML)' -r -f -a "text\t''
junit\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l jwks -d 'A JWKS document JWT signatures are verified against (as simulate\'s --jwks). Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l cel-cost-limit -d 'The most one evaluation of a CEL expression or a Rego policy may cost (cel-go\'s cost units; regorus\'s work units for Rego) before the run stops with PCTL5013' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l request-cost-limit -d 'The most every evaluation of one simulated request may cost together before the run stops with PCTL5013' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l max-requests -d 'The most requests one run simulates (counts included); more is PCTL5014' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -l accept-undecided -d 'Exit 0 when no case failed even if some were undecided (a request whose verdict needs a live server): they are still reported, and skipped in JUnit'
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand test" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -s f -l filename -d 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l stdin-name -d 'Name used for stdin in diagnostics' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -s n -l namespace -d 'Namespace given to namespaced objects that have none (like kubectl apply)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l kuadrant-version -d 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]' -r -f -a "1.4\t''
1.5\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l gateway-class -d 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l validate -d 'Fields a kind\'s schema does not declare, as kubectl apply\'s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]' -r -f -a "strict\t''
warn\t''
ignore\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l max-input-bytes -d 'The most bytes the run reads, files and streams together (watch: every cycle); the input that would go beyond it and those after it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l max-documents -d 'The most documents the run reads (YAML documents, objects of a JSON stream, items of a List; watch: every cycle); those from the first beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l max-paths -d 'The most paths (class → gateway → listener → route → rule) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l max-action-sets -d 'The most wasm action sets (a path\'s hostnames × its rule\'s matches) the run computes; routes beyond it are left out with PCTL1019, exit 2' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l only -d 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension' -r -f -a "wasm\t''
envoyfilter\t''
limitador\t''
authconfig\t''
envoygateway\t''
certificate\t''
dnsrecord\t''
extension\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l gateway -d 'Only paths through this gateway' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l wasm-sha256 -d 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l wasm-image -d 'wasm-shim image (default: the image of the emulated operator release)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l kuadrant-namespace -d 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l istio-controller-names -d 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l envoy-gateway-controller-names -d 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l out-dir -d 'Keep this folder in sync with the generated objects, as `compute --out-dir` does (atomic writes, prune, marker line), writing only the files that changed' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l lock-timeout -d 'With --out-dir: seconds to wait for another policyctl run writing the same folder to finish (0: do not wait) [default: 300]' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l debounce -d 'Milliseconds without events before a cycle starts (an editor\'s save is several events; at most an hour)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l resync -d 'Also recompute everything from scratch every SECS seconds (the state must not change)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l cycles -d 'Stop after N cycles that recomputed (the first, initial one included); for scripts and tests' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -f -a "status" -d 'Every policy\'s predicted status after each cycle'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -f -a "lint" -d 'Every finding after each cycle'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -f -a "explain" -d 'A target\'s paths after each cycle (TARGET as for `policyctl explain`)'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and not __fish_seen_subcommand_from status lint explain help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from status" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from status" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from status" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from status" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from status" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from lint" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from lint" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from lint" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from lint" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from lint" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from lint" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from explain" -l kind -d 'Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy)' -r
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from explain" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from explain" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from explain" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from explain" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from explain" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from explain" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from help" -f -a "status" -d 'Every policy\'s predicted status after each cycle'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from help" -f -a "lint" -d 'Every finding after each cycle'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from help" -f -a "explain" -d 'A target\'s paths after each cycle (TARGET as for `policyctl explain`)'
complete -c policyctl -n "__fish_policyctl_using_subcommand watch; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c policyctl -n "__fish_policyctl_using_subcommand completions" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand completions" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand completions" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand completions" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand completions" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand completions" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand version" -l color -d 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c policyctl -n "__fish_policyctl_using_subcommand version" -l config -d 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values' -r -F
complete -c policyctl -n "__fish_policyctl_using_subcommand version" -s q -l quiet -d 'Quiet: print findings as one line each, nothing else on stderr'
complete -c policyctl -n "__fish_policyctl_using_subcommand version" -s v -l verbose -d 'Verbose: also list skipped documents and kinds policyctl does not model'
complete -c policyctl -n "__fish_policyctl_using_subcommand version" -s h -l help -d 'Print help'
complete -c policyctl -n "__fish_policyctl_using_subcommand version" -s V -l version -d 'Print version'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "compute" -d 'Print the objects the operator would generate (WasmPlugin/EnvoyFilter, Limitador, AuthConfigs, ...)'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "diff" -d 'Show what would change: generated objects against current ones, or between two input trees'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "graph" -d 'Draw the topology (DOT, Mermaid or JSON), policies included'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "status" -d 'Predict every policy\'s Accepted and Enforced conditions'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "explain" -d 'Explain, for each path through a target, which policy rule won and why'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "lint" -d 'Report every diagnostic: schema and CEL validation, references, merge outcomes'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "audit" -d 'Audit coverage: paths without authentication or rate limiting, limits that never decide, shared counters; with --base, what a change takes away'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "simulate" -d 'Trace a request through gateway, route, wasm actions, AuthConfig and Limitador'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "test" -d 'Run test cases (requests and expected verdicts) against the simulated estate'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "watch" -d 'Watch the input files: recompute on every change and print what changed (objects, status, findings); keep --out-dir in sync'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "completions" -d 'Print shell completions'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "version" -d 'Print policyctl\'s version, the operator releases it emulates and what they ship'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and not __fish_seen_subcommand_from compute diff graph status explain lint audit simulate test watch completions version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and __fish_seen_subcommand_from watch" -f -a "status" -d 'Every policy\'s predicted status after each cycle'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and __fish_seen_subcommand_from watch" -f -a "lint" -d 'Every finding after each cycle'
complete -c policyctl -n "__fish_policyctl_using_subcommand help; and __fish_seen_subcommand_from watch" -f -a "explain" -d 'A target\'s paths after each cycle (TARGET as for `policyctl explain`)'
