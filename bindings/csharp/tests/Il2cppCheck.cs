// Il2cppCheck: does a compiled assembly hand native code only delegates IL2CPP can marshal?
//
//   mono il2cppcheck.exe ASSEMBLY.dll
//
// IL2CPP (Unity's ahead-of-time backend) turns a delegate passed to a native import into a
// function pointer only when the delegate targets a static method marked
// [MonoPInvokeCallback(typeof(TheDelegate))]; anything else (a lambda capturing a variable, an
// instance method, a delegate made from another delegate) throws NotSupportedException at the
// call in a player, while Mono, which runs this suite, accepts it silently.
//
// What is checked, by reading the method bodies' IL (reflection gives the bytes, the opcode
// table comes from System.Reflection.Emit.OpCodes):
// - the native-facing delegate types: every delegate type a [DllImport] method takes or returns
//   (also by reference, in an array, or as a field of a struct it takes), and every delegate
//   type marked [UnmanagedFunctionPointer];
// - every construction of such a delegate anywhere in the assembly (`ldftn M; newobj D::.ctor`,
//   which is what a method group, a lambda or `new D(...)` compile to) must have M static and
//   carry an attribute named MonoPInvokeCallbackAttribute whose argument is typeof(D);
//   `ldvirtftn` (a virtual or interface method, another delegate's Invoke) never passes;
// - Delegate.CreateDelegate and Marshal.GetDelegateForFunctionPointer are reported wherever they
//   are called (their target is not known from the IL).
// Every native delegate the library can be handed is constructed in the assembly, so this
// covers the values that reach the imports whatever field or local they pass through.
//
// Output: one line per construction found ("ok" or "BAD ... why"), then a summary line; the exit
// code is 1 when anything is BAD.
using System;
using System.Collections.Generic;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.InteropServices;

static class Il2cppCheck
{
    const BindingFlags All = BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Static |
                             BindingFlags.Instance | BindingFlags.DeclaredOnly;

    static readonly Dictionary<short, OpCode> Ops = new Dictionary<short, OpCode>();

    static int Main(string[] args)
    {
        if (args.Length != 1)
        {
            Console.Error.WriteLine("usage: il2cppcheck ASSEMBLY");
            return 2;
        }
        foreach (FieldInfo f in typeof(OpCodes).GetFields(BindingFlags.Public | BindingFlags.Static))
        {
            var op = (OpCode)f.GetValue(null);
            Ops[op.Value] = op;
        }
        Assembly asm = Assembly.LoadFrom(args[0]);
        Type[] types = asm.GetTypes();
        var native = NativeFacing(types);
        foreach (Type t in native) Console.WriteLine("native-facing delegate: " + t.FullName);
        int ok = 0, bad = 0;
        foreach (Type t in types)
            foreach (MethodBase m in Bodies(t))
                foreach (string finding in Scan(m, native))
                {
                    Console.WriteLine(finding);
                    if (finding.StartsWith("ok ")) ok++; else bad++;
                }
        Console.WriteLine("il2cpp-check: " + native.Count + " native-facing delegate type(s), " + ok +
                          " construction(s) IL2CPP can marshal, " + bad + " it cannot");
        return bad == 0 ? 0 : 1;
    }

    static IEnumerable<MethodBase> Bodies(Type t)
    {
        foreach (MethodInfo m in t.GetMethods(All)) yield return m;
        foreach (ConstructorInfo c in t.GetConstructors(All)) yield return c;
    }

    static bool IsDelegate(Type t)
    {
        return t != null && typeof(Delegate).IsAssignableFrom(t) && t != typeof(Delegate) &&
               t != typeof(MulticastDelegate);
    }

    static HashSet<Type> NativeFacing(Type[] types)
    {
        var found = new HashSet<Type>();
        var seen = new HashSet<Type>();
        foreach (Type t in types)
        {
            if (IsDelegate(t) && t.IsDefined(typeof(UnmanagedFunctionPointerAttribute), false)) found.Add(t);
            foreach (MethodInfo m in t.GetMethods(All))
            {
                if ((m.Attributes & MethodAttributes.PinvokeImpl) == 0) continue;
                Collect(m.ReturnType, found, seen);
                foreach (ParameterInfo p in m.GetParameters()) Collect(p.ParameterType, found, seen);
            }
        }
        return found;
    }

    static void Collect(Type t, HashSet<Type> found, HashSet<Type> seen)
    {
        while (t.HasElementType) t = t.GetElementType(); // ref, out, arrays, pointers
        if (!seen.Add(t)) return;
        if (IsDelegate(t))
        {
            found.Add(t);
            return;
        }
        if (t.IsValueType && !t.IsPrimitive && !t.IsEnum)
            foreach (FieldInfo f in t.GetFields(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance))
                Collect(f.FieldType, found, seen);
    }

    static string Name(MethodBase m)
    {
        return (m.DeclaringType == null ? "" : m.DeclaringType + ".") + m.Name;
    }

    static IEnumerable<string> Scan(MethodBase m, HashSet<Type> native)
    {
        MethodBody body;
        try { body = m.GetMethodBody(); }
        catch (Exception) { body = null; }
        if (body == null) yield break;
        byte[] il = body.GetILAsByteArray();
        Module module = m.Module;
        Type[] typeArgs = m.DeclaringType != null && m.DeclaringType.IsGenericType ? m.DeclaringType.GetGenericArguments() : null;
        Type[] methodArgs = m.IsGenericMethod ? m.GetGenericArguments() : null;
        int i = 0;
        OpCode prev = OpCodes.Nop;
        MethodBase prevTarget = null;
        while (i < il.Length)
        {
            OpCode op;
            short code = il[i] == 0xFE ? (short)(0xFE00 | il[i + 1]) : (short)il[i];
            if (!Ops.TryGetValue(code, out op))
            {
                yield return "BAD " + Name(m) + ": unknown opcode 0x" + code.ToString("X") + " at IL_" + i.ToString("X4");
                yield break;
            }
            i += op.Size;
            int operand = 0;
            int size = OperandSize(op, il, i);
            if (size == 4) operand = BitConverter.ToInt32(il, i);
            i += size;
            MethodBase target = null;
            if (op.OperandType == OperandType.InlineMethod)
            {
                try { target = module.ResolveMethod(operand, typeArgs, methodArgs); }
                catch (Exception) { target = null; }
            }
            if (op == OpCodes.Newobj && target != null && native.Contains(target.DeclaringType))
            {
                Type d = target.DeclaringType;
                string where = "in " + Name(m) + ": new " + d.FullName;
                if (prev != OpCodes.Ldftn && prev != OpCodes.Ldvirtftn)
                    yield return "BAD " + where + " from a value that is not a method (another delegate?)";
                else if (prev == OpCodes.Ldvirtftn)
                    yield return "BAD " + where + "(" + Name(prevTarget) + "): a virtual or instance method";
                else
                {
                    string why = Refusal(prevTarget, d);
                    yield return (why == null ? "ok " : "BAD ") + where + "(" + Name(prevTarget) + ")" +
                                 (why == null ? ": static, [MonoPInvokeCallback(typeof(" + d.Name + "))]" : ": " + why);
                }
            }
            if ((op == OpCodes.Call || op == OpCodes.Callvirt) && target != null)
            {
                string full = target.DeclaringType == null ? "" : target.DeclaringType.FullName;
                if ((full == "System.Delegate" && target.Name == "CreateDelegate") ||
                    (full == "System.Runtime.InteropServices.Marshal" && target.Name.StartsWith("GetDelegateForFunctionPointer")))
                    yield return "BAD in " + Name(m) + ": " + full + "." + target.Name + " (its target cannot be checked)";
            }
            prev = op;
            prevTarget = target;
        }
    }

    /// <summary>Why IL2CPP cannot marshal a delegate of type d to m (null: it can).</summary>
    static string Refusal(MethodBase m, Type d)
    {
        if (m == null) return "the target method does not resolve";
        if (!m.IsStatic) return "an instance method (a closure's or an object's)";
        foreach (CustomAttributeData a in CustomAttributeData.GetCustomAttributes(m))
        {
            if (a.Constructor.DeclaringType.Name != "MonoPInvokeCallbackAttribute") continue;
            if (a.ConstructorArguments.Count == 1 && (a.ConstructorArguments[0].Value as Type) == d) return null;
            return "[MonoPInvokeCallback] names another type than " + d.Name;
        }
        return "a static method without [MonoPInvokeCallback(typeof(" + d.Name + "))]";
    }

    static int OperandSize(OpCode op, byte[] il, int at)
    {
        switch (op.OperandType)
        {
            case OperandType.InlineNone: return 0;
            case OperandType.ShortInlineBrTarget:
            case OperandType.ShortInlineI:
            case OperandType.ShortInlineVar: return 1;
            case OperandType.InlineVar: return 2;
            case OperandType.InlineI8:
            case OperandType.InlineR: return 8;
            case OperandType.InlineSwitch: return 4 + 4 * BitConverter.ToInt32(il, at);
            default: return 4; // branch targets, tokens, int32, float32
        }
    }
}
