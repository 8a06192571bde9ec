package import Latchkey

/// What `latchkey session` warns about before it uses a configuration: secrets where
/// others can read them — in a configuration file readable by others, or in a command
/// line (which any user can read in /proc, and shells keep in their history). One home
/// for both programs that run session commands (`latchkey-full`, `latchkey-token`).
package enum SessionWarnings {
    /// The registry's warnings about `configuration`, then the exposed secrets.
    ///
    /// - Parameter commandLineSettings: the `--setting` names given on the command line.
    /// - Throws: the registry's ``AuthError/Code/configuration`` error.
    package static func all(
        _ configuration: LatchkeyConfiguration, registry: ProviderRegistry, commandLineSettings: [String] = []
    ) throws(AuthError) -> [String] {
        try registry.check(configuration) + exposedSecrets(configuration, registry: registry, commandLineSettings: commandLineSettings)
    }

    /// Secrets in a configuration file others can read, and secrets given with `--setting`.
    package static func exposedSecrets(
        _ configuration: LatchkeyConfiguration, registry: ProviderRegistry, commandLineSettings: [String]
    ) -> [String] {
        let secrets = Set(registry.factory(for: configuration.provider)?.schema.keys.filter(\.isSecret).map(\.name) ?? [])
        var warnings: [String] = []
        if let file = configuration.file, let mode = configuration.fileMode, mode & 0o044 != 0 {
            for name in configuration.settings.inlineKeys.sorted() where secrets.contains(name) {
                warnings.append(
                    "the configuration file \(file) holds the secret \"settings.\(name)\" and others can read it "
                        + "(mode \(String(mode, radix: 8))): chmod 600 it, or move the secret to \(ProviderSettings.environmentName(of: name))")
            }
        }
        for name in commandLineSettings where secrets.contains(name) {
            warnings.append(
                "--setting \(name)=… puts a secret on the command line, where other users can read it (/proc) "
                    + "and the shell's history keeps it; set \(ProviderSettings.environmentName(of: name)) "
                    + "or keep it in a configuration file only you can read (mode 600)")
        }
        return warnings
    }
}
