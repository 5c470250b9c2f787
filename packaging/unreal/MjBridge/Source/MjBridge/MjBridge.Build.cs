// The runtime module: loads the bridge's libraries from the plugin's folder at startup (before
// the game's modules, LoadingPhase PreDefault) and re-exports the MjBridgeLibrary module, so a
// game module that depends on "MjBridge" includes "mjbridge.hpp" or "mjbridge.h" and calls the
// bridge directly.
using UnrealBuildTool;

public class MjBridge : ModuleRules
{
	public MjBridge(ReadOnlyTargetRules Target) : base(Target)
	{
		PCHUsage = ModuleRules.PCHUsageMode.UseExplicitOrSharedPCHs;
		PublicDependencyModuleNames.AddRange(new string[] { "Core", "MjBridgeLibrary" });
		// IPluginManager: the plugin's base folder, wherever the project or a packaged game has it.
		PrivateDependencyModuleNames.AddRange(new string[] { "Projects" });
	}
}
