#include "MjBridgeModule.h"

#include "HAL/PlatformProcess.h"
#include "Interfaces/IPluginManager.h"
#include "Misc/Paths.h"

#include "mjbridge.h"

DEFINE_LOG_CATEGORY_STATIC(LogMjBridge, Log, All);

void FMjBridgeModule::StartupModule()
{
	// The plugin's folder as this process sees it: the project's Plugins/MjBridge in the editor,
	// the staged copy in a packaged game (RuntimeDependencies put the libraries there).
	const FString BaseDir = IPluginManager::Get().FindPlugin(TEXT("MjBridge"))->GetBaseDir();
	const FString LibRoot = FPaths::Combine(BaseDir, TEXT("Binaries"), TEXT("ThirdParty"), TEXT("MjBridgeLibrary"));
#if PLATFORM_WINDOWS
	const FString LibDir = FPaths::Combine(LibRoot, TEXT("Win64"));
	const FString MujocoPath = FPaths::Combine(LibDir, TEXT("mujoco.dll"));
	const FString BridgePath = FPaths::Combine(LibDir, TEXT("mjbridge.dll"));
#elif PLATFORM_LINUX
	const FString LibDir = FPaths::Combine(LibRoot, TEXT("Linux"), TEXT("x86_64-unknown-linux-gnu"));
	const FString MujocoPath = FPaths::Combine(LibDir, TEXT("@LINUX_MUJOCO@"));
	const FString BridgePath = FPaths::Combine(LibDir, TEXT("libmjbridge.so"));
#else
#error "the MjBridge plugin has libraries for Win64 and Linux only"
#endif
	EnginePluginDir = FPaths::Combine(LibDir, TEXT("mujoco_plugin"));

	// MuJoCo first: mjbridge.dll imports mujoco.dll by name, and Windows binds that import to
	// the module already loaded instead of searching the executable's folder for it. The
	// game's calls into mjbridge.dll are delay-loaded (PublicDelayLoadDLLs): the first one binds
	// to the DLL loaded here. On Linux the same load is a no-op for the game module (it found
	// libmjbridge.so through its RPATH) and gives the handle and the version check.
	FPlatformProcess::PushDllDirectory(*LibDir);
	MujocoHandle = FPlatformProcess::GetDllHandle(*MujocoPath);
	BridgeHandle = MujocoHandle ? FPlatformProcess::GetDllHandle(*BridgePath) : nullptr;
	FPlatformProcess::PopDllDirectory(*LibDir);
	if (!BridgeHandle)
	{
		UE_LOG(LogMjBridge, Error, TEXT("could not load %s (with %s): is the plugin's Binaries/ThirdParty folder complete?"),
			*BridgePath, *MujocoPath);
		return;
	}

	// The header this module was compiled with and the library loaded are one release.
	const FString Loaded = UTF8_TO_TCHAR(mjb_version());
	const FString Built = UTF8_TO_TCHAR(MJB_VERSION);
	if (Loaded != Built)
	{
		UE_LOG(LogMjBridge, Error, TEXT("mjbridge %s loaded, but this plugin was compiled with the %s header"), *Loaded, *Built);
	}
	UE_LOG(LogMjBridge, Log, TEXT("mjbridge %s loaded from %s"), *Loaded, *LibDir);
}

void FMjBridgeModule::ShutdownModule()
{
	if (BridgeHandle)
	{
		FPlatformProcess::FreeDllHandle(BridgeHandle);
		BridgeHandle = nullptr;
	}
	if (MujocoHandle)
	{
		FPlatformProcess::FreeDllHandle(MujocoHandle);
		MujocoHandle = nullptr;
	}
}

IMPLEMENT_MODULE(FMjBridgeModule, MjBridge)
