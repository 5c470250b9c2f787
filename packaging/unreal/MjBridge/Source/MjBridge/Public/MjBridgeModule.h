// The MjBridge runtime module: the bridge (mjbridge) and MuJoCo, loaded from this plugin's
// Binaries/ThirdParty/MjBridgeLibrary/<platform> folder when the module starts and released when
// it shuts down. Call the bridge after the module has loaded (any module that depends on
// "MjBridge" starts after it); FMjBridgeModule::Get().IsLoaded() says whether loading worked.
#pragma once

#include "CoreMinimal.h"
#include "Modules/ModuleManager.h"

class MJBRIDGE_API FMjBridgeModule : public IModuleInterface
{
public:
	virtual void StartupModule() override;
	virtual void ShutdownModule() override;

	static FMjBridgeModule& Get() { return FModuleManager::LoadModuleChecked<FMjBridgeModule>("MjBridge"); }

	/** Whether mjbridge and MuJoCo were loaded (false: a call into the bridge would fail). */
	bool IsLoaded() const { return BridgeHandle != nullptr; }

	/** The folder of MuJoCo's engine plugins (actuators, sensors, SDF), for mjb_plugin_load_dir. */
	const FString& GetEnginePluginDir() const { return EnginePluginDir; }

private:
	void* MujocoHandle = nullptr;
	void* BridgeHandle = nullptr;
	FString EnginePluginDir;
};
