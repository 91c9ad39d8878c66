/// Every command `keep` has, in the order `keep --help` lists them: the one table a new
/// command is added to.
enum CommandTable {
    static let chat = ChatCommand.command

    static let commands: [Command] = [
        chat, AskCommand.command, ChatsCommand.command, SettingsCommand.command, KeyCommand.command,
        RecoveryCommand.command,
        StoreCommand.command, ServersCommand.command, AliasesCommand.command, RolesCommand.command,
        EnginesCommand.command, WhatsNewCommand.command, DoctorCommand.command,
        UsageCommand.command, VersionCommand.command, CompletionsCommand.command, HelpCommand.command,
    ]
}
