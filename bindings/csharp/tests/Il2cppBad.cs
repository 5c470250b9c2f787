// Delegates IL2CPP cannot marshal, each handed to a native import of the binding: compiled with
// MjBridge.cs and one -define:NAME, the assembly must fail Il2cppCheck (tests/engine_packages.rs).
// The pattern the binding had before: a lambda capturing the caller's handler (CLOSURE); an
// object's method (INSTANCE); a static method without the attribute (UNMARKED); the attribute
// naming another delegate type (WRONG_TYPE); a delegate converted from an Action (CONVERTED).
using System;
using MjBridge;

static class Il2cppBad
{
#if CLOSURE
    public static void Set(Action<LogLevel, string> handler)
    {
        Native.mjb_set_log_callback((user, level, message) => handler((LogLevel)level, "?"), IntPtr.Zero, 2);
    }
#elif INSTANCE
    sealed class Sink
    {
        public int Count;
        public void OnLog(IntPtr user, int level, IntPtr message) { Count++; }
    }

    public static void Set()
    {
        Native.mjb_set_log_callback(new Sink().OnLog, IntPtr.Zero, 2);
    }
#elif UNMARKED
    static void OnLog(IntPtr user, int level, IntPtr message) { }

    public static void Set()
    {
        Native.mjb_set_log_callback(OnLog, IntPtr.Zero, 2);
    }
#elif WRONG_TYPE
    [AOT.MonoPInvokeCallback(typeof(Action))]
    static void OnLog(IntPtr user, int level, IntPtr message) { }

    public static void Set()
    {
        Native.mjb_set_log_callback(OnLog, IntPtr.Zero, 2);
    }
#elif CONVERTED
    public static void Set(Action<IntPtr, int, IntPtr> a)
    {
        Native.mjb_set_log_callback(new LogCallback(a), IntPtr.Zero, 2);
    }
#endif
}
