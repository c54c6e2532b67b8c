
use builtin;
use str;

set edit:completion:arg-completer[policyctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'policyctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'policyctl'= {
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand compute 'Print the objects the operator would generate (WasmPlugin/EnvoyFilter, Limitador, AuthConfigs, ...)'
            cand diff 'Show what would change: generated objects against current ones, or between two input trees'
            cand graph 'Draw the topology (DOT, Mermaid or JSON), policies included'
            cand status 'Predict every policy''s Accepted and Enforced conditions'
            cand explain 'Explain, for each path through a target, which policy rule won and why'
            cand lint 'Report every diagnostic: schema and CEL validation, references, merge outcomes'
            cand audit 'Audit coverage: paths without authentication or rate limiting, limits that never decide, shared counters; with --base, what a change takes away'
            cand simulate 'Trace a request through gateway, route, wasm actions, AuthConfig and Limitador'
            cand test 'Run test cases (requests and expected verdicts) against the simulated estate'
            cand watch 'Watch the input files: recompute on every change and print what changed (objects, status, findings); keep --out-dir in sync'
            cand completions 'Print shell completions'
            cand version 'Print policyctl''s version, the operator releases it emulates and what they ship'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'policyctl;compute'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --diagnostics-format 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it'
            cand --diagnostics-file 'Write the diagnostics to FILE instead of stderr'
            cand -o 'Output format: yaml (multi-document, kubectl style) or json (a v1 List)'
            cand --output 'Output format: yaml (multi-document, kubectl style) or json (a v1 List)'
            cand --only 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension'
            cand --gateway 'Only paths through this gateway'
            cand --wasm-sha256 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]'
            cand --wasm-image 'wasm-shim image (default: the image of the emulated operator release)'
            cand --kuadrant-namespace 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]'
            cand --istio-controller-names 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)'
            cand --envoy-gateway-controller-names 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)'
            cand --out-dir 'Write one file per object into this folder (atomically), prune files generated earlier that are no longer desired, and report created / updated / unchanged / pruned. Files without policyctl''s marker line are never touched'
            cand --lock-timeout 'With --out-dir: seconds to wait for another policyctl run writing the same folder to finish (0: do not wait) [default: 300]'
            cand --fail-on 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand --check 'With --out-dir: write nothing; exit 1 and list what is stale'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;diff'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --diagnostics-format 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it'
            cand --diagnostics-file 'Write the diagnostics to FILE instead of stderr'
            cand --against 'Current objects: a file, a folder (e.g. `compute --out-dir` output), or - for stdin (e.g. a `kubectl get … -o yaml` dump). Only Kuadrant-managed objects, the Limitador CR and the operator''s Certificates and DNSRecords are compared'
            cand --base 'Another input tree (e.g. the pull request''s base): compute both and compare the outputs'
            cand -o 'Output: unified (default), stat, json or markdown (a pull-request comment)'
            cand --output 'Output: unified (default), stat, json or markdown (a pull-request comment)'
            cand --context 'Lines of context in unified diffs'
            cand --only 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension'
            cand --gateway 'Only paths through this gateway'
            cand --wasm-sha256 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]'
            cand --wasm-image 'wasm-shim image (default: the image of the emulated operator release)'
            cand --kuadrant-namespace 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]'
            cand --istio-controller-names 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)'
            cand --envoy-gateway-controller-names 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;graph'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --diagnostics-format 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it'
            cand --diagnostics-file 'Write the diagnostics to FILE instead of stderr'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --compat 'Print DOT exactly as another tool does (only with -o dot)'
            cand --for 'Draw only this object, its ancestors, descendants and the policies attached to any of them: KIND/NAMESPACE/NAME (gatewayclass/NAME for classes; listener/NS/GATEWAY#LISTENER for a listener)'
            cand --fail-on 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;status'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --diagnostics-format 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it'
            cand --diagnostics-file 'Write the diagnostics to FILE instead of stderr'
            cand -o 'Output: table, wide (adds reasons, overriding policies, paths), yaml (the policies as written with predicted status.conditions, multi-document) or json (a kubectl List)'
            cand --output 'Output: table, wide (adds reasons, overriding policies, paths), yaml (the policies as written with predicted status.conditions, multi-document) or json (a kubectl List)'
            cand --fail-on 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand --respect-status 'Read listener and route readiness from the objects'' status instead of assuming it'
            cand --routes 'Show the routes instead of the policies: the kuadrant.io/<Kind>Affected conditions the operator writes on each HTTPRoute/GRPCRoute parent Gateway (table: one row per condition; yaml/json: the routes as written with the predicted status.parents entries)'
            cand --gateways 'Show the Gateways instead of the policies: the kuadrant.io/<Kind>Affected conditions the operator writes on each Gateway and on each of its listeners (table: one row per condition, LISTENER `-` for the Gateway''s own; yaml/json: the Gateways as written with the predicted status.conditions and status.listeners)'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;explain'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --diagnostics-format 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it'
            cand --diagnostics-file 'Write the diagnostics to FILE instead of stderr'
            cand --kind 'Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy)'
            cand -o 'Output: text (a tree), yaml or json'
            cand --output 'Output: text (a tree), yaml or json'
            cand --fail-on 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;lint'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand -o 'Output format: text, json, github (workflow annotations), sarif (SARIF 2.1.0) or junit (JUnit XML)'
            cand --output 'Output format: text, json, github (workflow annotations), sarif (SARIF 2.1.0) or junit (JUnit XML)'
            cand --fail-on 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;audit'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --diagnostics-format 'Format of the diagnostics: text, json, github, sarif or junit [default: text]. The exit code does not depend on it'
            cand --diagnostics-file 'Write the diagnostics to FILE instead of stderr'
            cand -o 'Output: table, json, markdown (a pull-request comment) or sarif (the findings)'
            cand --output 'Output: table, json, markdown (a pull-request comment) or sarif (the findings)'
            cand --require 'Make a path without this protection a finding, and the exit code 1 (comma-separated: auth, ratelimit)'
            cand --base 'Another input tree (e.g. the pull request''s base): audit both and say what the change does to coverage and findings'
            cand --fail-on 'The lowest severity that makes the exit code 1 [default: error, or failOn in the settings file]. Findings of --require always do'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;simulate'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --requests 'Play a timed list of requests from FILE (- for stdin): a YAML list or JSON Lines, each entry a url and optionally at/after, method, headers, identity, source, tokens, count, interval. -X, -H, --identity, --source and --tokens apply to every entry that does not say otherwise'
            cand -X 'The request method'
            cand --request 'The request method'
            cand -H 'A request header, ''Name: value''. Repeatable'
            cand --header 'A request header, ''Name: value''. Repeatable'
            cand --identity 'What Authorino would put under auth.identity: JSON, or @FILE holding it'
            cand --source 'The client''s address (source.address, source.port): ADDRESS[:PORT]'
            cand --tokens 'Token usage reported after each response, for TokenRateLimitPolicies: the response''s usage.total_tokens (without it, or --response-body, token counters become undecided)'
            cand --response-body 'The upstream response''s JSON body, which responseBodyJSON reads (token usage): JSON, or @FILE holding it'
            cand --assume 'State the outcome of a rule that needs a live server: SECTION/NAME=VALUE, SECTION one of authentication, authorization, metadata; VALUE true, false or JSON (an identity, a metadata object). Repeatable'
            cand --jwks 'A JWKS document (JSON, {"keys": [...]}) JWT signatures are verified against, for the issuerUrl or jwksUrl URL names, or for every JWT rule without one of its own. Without it a JWT''s claims are decoded and its signature is not verified. Repeatable'
            cand --connect-to 'As curl: send a request for HOST1:PORT1 to HOST2:PORT2 (empty parts: any host or port, or unchanged), e.g. localhost:9081::80 for a port-forward to the gateway''s port 80. Repeatable'
            cand --count 'Send the request N times (at most --max-requests)'
            cand --interval 'Time between two requests of --count (e.g. 500ms, 1s) [default: 0, all at one instant]'
            cand --gateway 'The gateway (NAMESPACE/NAME) to send to when several listen on the URL''s port'
            cand -o 'Output: text (a tree for one request, a line per request for several) or json'
            cand --output 'Output: text (a tree for one request, a line per request for several) or json'
            cand --cel-cost-limit 'The most one evaluation of a CEL expression or a Rego policy may cost (cel-go''s cost units; regorus''s work units for Rego) before the run stops with PCTL5013'
            cand --request-cost-limit 'The most every evaluation of one simulated request may cost together before the run stops with PCTL5013'
            cand --max-requests 'The most requests one run simulates (counts included); more is PCTL5014'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;test'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand -o 'Output: text (a line per case and a summary) or junit (XML)'
            cand --output 'Output: text (a line per case and a summary) or junit (XML)'
            cand --jwks 'A JWKS document JWT signatures are verified against (as simulate''s --jwks). Repeatable'
            cand --cel-cost-limit 'The most one evaluation of a CEL expression or a Rego policy may cost (cel-go''s cost units; regorus''s work units for Rego) before the run stops with PCTL5013'
            cand --request-cost-limit 'The most every evaluation of one simulated request may cost together before the run stops with PCTL5013'
            cand --max-requests 'The most requests one run simulates (counts included); more is PCTL5014'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand --accept-undecided 'Exit 0 when no case failed even if some were undecided (a request whose verdict needs a live server): they are still reported, and skipped in JUnit'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;watch'= {
            cand -f 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --filename 'A manifest file, a directory (read recursively: .yaml, .yml, .json; hidden entries skipped), or - for stdin. Repeatable'
            cand --stdin-name 'Name used for stdin in diagnostics'
            cand -n 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --namespace 'Namespace given to namespaced objects that have none (like kubectl apply)'
            cand --kuadrant-version 'Kuadrant operator release line to emulate [default: 1.5, the newest, or kuadrantVersion in the settings file]'
            cand --gateway-class 'Assume a GatewayClass the input does not define has this controllerName (repeatable). Built in: istio=istio.io/gateway-controller, eg=gateway.envoyproxy.io/gatewayclass-controller, envoy-gateway=gateway.envoyproxy.io/gatewayclass-controller; also gatewayClasses in the settings file'
            cand --validate 'Fields a kind''s schema does not declare, as kubectl apply''s --validate: strict refuses the object (the default), warn drops the field with a warning, ignore drops it silently [also validate in the settings file]'
            cand --only 'Only these object families (comma-separated): wasm, envoyfilter, limitador, authconfig, envoygateway, certificate, dnsrecord, extension'
            cand --gateway 'Only paths through this gateway'
            cand --wasm-sha256 'sha256 of the wasm module the 1.5 operator serves (written into the wasm EnvoyFilter) [default: empty; the operator computes it from the module at run time]'
            cand --wasm-image 'wasm-shim image (default: the image of the emulated operator release)'
            cand --kuadrant-namespace 'Namespace used when the input has no Kuadrant object [default: kuadrant-system]'
            cand --istio-controller-names 'GatewayClass controller names handled as Istio (comma-separated; the default is appended)'
            cand --envoy-gateway-controller-names 'GatewayClass controller names handled as Envoy Gateway (comma-separated; the default is appended)'
            cand --out-dir 'Keep this folder in sync with the generated objects, as `compute --out-dir` does (atomic writes, prune, marker line), writing only the files that changed'
            cand --lock-timeout 'With --out-dir: seconds to wait for another policyctl run writing the same folder to finish (0: do not wait) [default: 300]'
            cand --debounce 'Milliseconds without events before a cycle starts (an editor''s save is several events; at most an hour)'
            cand --resync 'Also recompute everything from scratch every SECS seconds (the state must not change)'
            cand --cycles 'Stop after N cycles that recomputed (the first, initial one included); for scripts and tests'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand status 'Every policy''s predicted status after each cycle'
            cand lint 'Every finding after each cycle'
            cand explain 'A target''s paths after each cycle (TARGET as for `policyctl explain`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'policyctl;watch;status'= {
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;watch;lint'= {
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;watch;explain'= {
            cand --kind 'Only this policy kind (RateLimitPolicy, AuthPolicy, TokenRateLimitPolicy)'
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;watch;help'= {
            cand status 'Every policy''s predicted status after each cycle'
            cand lint 'Every finding after each cycle'
            cand explain 'A target''s paths after each cycle (TARGET as for `policyctl explain`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'policyctl;watch;help;status'= {
        }
        &'policyctl;watch;help;lint'= {
        }
        &'policyctl;watch;help;explain'= {
        }
        &'policyctl;watch;help;help'= {
        }
        &'policyctl;completions'= {
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;version'= {
            cand --color 'When to use colour: auto (a terminal, and NO_COLOR unset), always, never'
            cand --config 'Settings file [default: .policyctl.yaml in the current directory or the nearest parent]. Flags and POLICYCTL_* variables override its values'
            cand -q 'Quiet: print findings as one line each, nothing else on stderr'
            cand --quiet 'Quiet: print findings as one line each, nothing else on stderr'
            cand -v 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand --verbose 'Verbose: also list skipped documents and kinds policyctl does not model'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'policyctl;help'= {
            cand compute 'Print the objects the operator would generate (WasmPlugin/EnvoyFilter, Limitador, AuthConfigs, ...)'
            cand diff 'Show what would change: generated objects against current ones, or between two input trees'
            cand graph 'Draw the topology (DOT, Mermaid or JSON), policies included'
            cand status 'Predict every policy''s Accepted and Enforced conditions'
            cand explain 'Explain, for each path through a target, which policy rule won and why'
            cand lint 'Report every diagnostic: schema and CEL validation, references, merge outcomes'
            cand audit 'Audit coverage: paths without authentication or rate limiting, limits that never decide, shared counters; with --base, what a change takes away'
            cand simulate 'Trace a request through gateway, route, wasm actions, AuthConfig and Limitador'
            cand test 'Run test cases (requests and expected verdicts) against the simulated estate'
            cand watch 'Watch the input files: recompute on every change and print what changed (objects, status, findings); keep --out-dir in sync'
            cand completions 'Print shell completions'
            cand version 'Print policyctl''s version, the operator releases it emulates and what they ship'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'policyctl;help;compute'= {
        }
        &'policyctl;help;diff'= {
        }
        &'policyctl;help;graph'= {
        }
        &'policyctl;help;status'= {
        }
        &'policyctl;help;explain'= {
        }
        &'policyctl;help;lint'= {
        }
        &'policyctl;help;audit'= {
        }
        &'policyctl;help;simulate'= {
        }
        &'policyctl;help;test'= {
        }
        &'policyctl;help;watch'= {
            cand status 'Every policy''s predicted status after each cycle'
            cand lint 'Every finding after each cycle'
            cand explain 'A target''s paths after each cycle (TARGET as for `policyctl explain`)'
        }
        &'policyctl;help;watch;status'= {
        }
        &'policyctl;help;watch;lint'= {
        }
        &'policyctl;help;watch;explain'= {
        }
        &'policyctl;help;completions'= {
        }
        &'policyctl;help;version'= {
        }
        &'policyctl;help;help'= {
        }
    ]
    $completions[$command]
}
