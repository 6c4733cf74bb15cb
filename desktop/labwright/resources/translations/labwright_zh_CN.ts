<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>DiffView</name>
    <message>
        <source>No changes from the generated draft</source>
        <translation>与生成的草稿相比没有改动</translation>
    </message>
    <message>
        <source>+{0} −{1} lines</source>
        <translation>+{0} −{1} 行</translation>
    </message>
    <message>
        <source>… {0} unchanged lines …</source>
        <translation>… {0} 行未改动 …</translation>
    </message>
</context>
<context>
    <name>DoctorDialog</name>
    <message>
        <source>Check Setup</source>
        <translation>检查环境</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查项</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>To fix what is missing, run:</source>
        <translation>要补齐缺少的部分，请运行：</translation>
    </message>
    <message>
        <source>Check &amp;again</source>
        <translation>再次检查(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Copy commands</source>
        <translation>复制命令(&amp;C)</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>missing</source>
        <translation>缺少</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Checking…</source>
        <translation>正在检查…</translation>
    </message>
    <message>
        <source>Labwright is not ready yet: {0}.</source>
        <translation>Labwright 尚未就绪：{0}。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Everything Labwright needs is there.</source>
        <translation>Labwright 所需的一切都已具备。</translation>
    </message>
    <message>
        <source>Closing when the checks answer…</source>
        <translation>检查完成后关闭…</translation>
    </message>
    <message>
        <source>Offline reports work; reports written by a model need: {0}.</source>
        <translation>可以生成离线报告；由模型撰写的报告还需要：{0}。</translation>
    </message>
    <message>
        <source>Labwright can make reports. Warnings: {0}.</source>
        <translation>Labwright 可以生成报告。警告：{0}。</translation>
    </message>
</context>
<context>
    <name>DropZone</name>
    <message>
        <source>“{0}” does not exist any more.</source>
        <translation>“{0}”已不存在。</translation>
    </message>
    <message>
        <source>“{0}” is a file. Please drop the folder that holds your experiment material.</source>
        <translation>“{0}”是一个文件。请拖入存放实验材料的文件夹。</translation>
    </message>
    <message>
        <source>Labwright is not allowed to read “{0}”. Check its permissions.</source>
        <translation>Labwright 无权读取“{0}”，请检查其权限。</translation>
    </message>
    <message>
        <source>Drop a folder of experiment material</source>
        <translation>将实验材料文件夹拖到这里</translation>
    </message>
    <message>
        <source>Measurements, the lab manual, photos — Labwright reads them and drafts your report. It never changes your files.</source>
        <translation>测量数据、实验讲义、照片——Labwright 会阅读它们并起草你的报告，绝不修改你的文件。</translation>
    </message>
    <message>
        <source>Open Folder…</source>
        <translation>打开文件夹…</translation>
    </message>
    <message>
        <source>Please drop one folder at a time, from this computer.</source>
        <translation>请一次拖入一个本机上的文件夹。</translation>
    </message>
</context>
<context>
    <name>EditorPanel</name>
    <message>
        <source>&amp;Find…</source>
        <translation>查找(&amp;F)…</translation>
    </message>
    <message>
        <source>Find and &amp;Replace…</source>
        <translation>查找和替换(&amp;R)…</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <source>the API key was refused</source>
        <translation>API 密钥被拒绝</translation>
    </message>
    <message>
        <source>the server could not be reached</source>
        <translation>无法连接服务器</translation>
    </message>
    <message>
        <source>rate limit or quota</source>
        <translation>频率限制或额度不足</translation>
    </message>
    <message>
        <source>a server error</source>
        <translation>服务器出错</translation>
    </message>
    <message>
        <source>the request was rejected</source>
        <translation>请求被拒绝</translation>
    </message>
    <message>
        <source>too long for the model</source>
        <translation>超出模型的上下文长度</translation>
    </message>
    <message>
        <source>no such model or endpoint</source>
        <translation>没有这个模型或接口</translation>
    </message>
    <message>
        <source>the model cannot call tools</source>
        <translation>模型无法调用工具</translation>
    </message>
    <message>
        <source>an answer that could not be used</source>
        <translation>回答无法使用</translation>
    </message>
    <message>
        <source>out of time</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>an unexpected failure</source>
        <translation>意外故障</translation>
    </message>
    <message>
        <source>The model server refused the API key. Check the key in Settings.</source>
        <translation>模型服务器拒绝了 API 密钥。请在设置中检查密钥。</translation>
    </message>
    <message>
        <source>Cannot reach the model server. Check its address in Settings and your connection, or tick “Offline”.</source>
        <translation>无法连接模型服务器。请在设置中检查其地址和网络连接，或勾选“离线”。</translation>
    </message>
    <message>
        <source>The model server kept refusing for its rate limit or quota. Wait a little or check your plan.</source>
        <translation>模型服务器因频率限制或额度不足一再拒绝请求。请稍候再试，或检查你的套餐。</translation>
    </message>
    <message>
        <source>The model server failed, even after retries. Try again later.</source>
        <translation>模型服务器出错，重试后仍然失败。请稍后再试。</translation>
    </message>
    <message>
        <source>The model server rejected the request. Check the model name in Settings.</source>
        <translation>模型服务器拒绝了请求。请在设置中检查模型名称。</translation>
    </message>
    <message>
        <source>The request is longer than the model&apos;s context. Use a model with a longer context.</source>
        <translation>请求超出了模型的上下文长度。请改用上下文更长的模型。</translation>
    </message>
    <message>
        <source>The model server has no such model or endpoint. Check the model name and the address (it usually ends in /v1) in Settings.</source>
        <translation>模型服务器上没有这个模型或接口。请在设置中检查模型名称和地址（通常以 /v1 结尾）。</translation>
    </message>
    <message>
        <source>The model rejects tool calls, which exploring the folder needs. Choose a model that supports tool calls in Settings.</source>
        <translation>模型拒绝工具调用，而探索文件夹需要工具调用。请在设置中选择支持工具调用的模型。</translation>
    </message>
    <message>
        <source>The model server sent an answer that could not be used.</source>
        <translation>模型服务器返回的回答无法使用。</translation>
    </message>
    <message>
        <source>A model call took longer than its time limit and was stopped.</source>
        <translation>一次模型调用超过了时间上限，已被停止。</translation>
    </message>
    <message>
        <source>A model call failed.</source>
        <translation>一次模型调用失败。</translation>
    </message>
    <message>
        <source>Labwright itself failed during the run; error.txt in the run folder has the details.</source>
        <translation>Labwright 自身在运行中出错；详情见运行文件夹中的 error.txt。</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>Zip archive (*.zip)</source>
        <translation>Zip 压缩包 (*.zip)</translation>
    </message>
    <message>
        <source>Folder (*)</source>
        <translation>文件夹 (*)</translation>
    </message>
    <message>
        <source>Word document (*.docx)</source>
        <translation>Word 文档 (*.docx)</translation>
    </message>
    <message>
        <source>This draft is degraded: {0}</source>
        <translation>这份草稿不完整：{0}</translation>
    </message>
    <message>
        <source>Open items remain: {0}.</source>
        <translation>仍有待处理事项：{0} 项。</translation>
    </message>
    <message>
        <source>There is no compiled PDF yet: the export holds the LaTeX source only.</source>
        <translation>尚无编译好的 PDF：导出内容只包含 LaTeX 源文件。</translation>
    </message>
    <message>
        <source>Export a draft that needs review?</source>
        <translation>导出一份仍需审阅的草稿？</translation>
    </message>
    <message>
        <source>Export anyway?</source>
        <translation>仍然导出吗？</translation>
    </message>
    <message>
        <source>Export the report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Choose another place</source>
        <translation>请另选位置</translation>
    </message>
</context>
<context>
    <name>ExportRefusals</name>
    <message>
        <source>{run_dir} has no report.tex to export.</source>
        <translation>{run_dir} 中没有可导出的 report.tex。</translation>
    </message>
    <message>
        <source>{dest} is inside the material folder {folder}; Labwright never writes there. Choose another place.</source>
        <translation>{dest} 位于材料文件夹 {folder} 之内；Labwright 从不写入那里。请另选位置。</translation>
    </message>
    <message>
        <source>{dest} is inside the run directory; choose a place outside it.</source>
        <translation>{dest} 位于运行文件夹之内；请选择它之外的位置。</translation>
    </message>
    <message>
        <source>{dest} is a folder; give the name of the .zip file to write.</source>
        <translation>{dest} 是一个文件夹；请给出要写入的 .zip 文件名。</translation>
    </message>
    <message>
        <source>{dest} is a folder; give the name of the .docx file to write.</source>
        <translation>{dest} 是一个文件夹；请给出要写入的 .docx 文件名。</translation>
    </message>
    <message>
        <source>The folder {parent} does not exist.</source>
        <translation>文件夹 {parent} 不存在。</translation>
    </message>
    <message>
        <source>{dest} is a file; choose a new or empty folder.</source>
        <translation>{dest} 是一个文件；请选择新的或空的文件夹。</translation>
    </message>
    <message>
        <source>The folder {dest} is not empty; choose a new or empty folder, so nothing of yours is overwritten.</source>
        <translation>文件夹 {dest} 不是空的；请选择新的或空的文件夹，以免覆盖你的文件。</translation>
    </message>
    <message>
        <source>A Word document is made with pandoc, which is not installed: install Labwright with its pypandoc-binary package, or pandoc 2.15 or later.</source>
        <translation>Word 文档由 pandoc 生成，但本机未安装 pandoc：请连同 pypandoc-binary 包一起安装 Labwright，或安装 pandoc 2.15 及以上版本。</translation>
    </message>
    <message>
        <source>pandoc did not finish the Word document within {seconds} s; nothing was written.</source>
        <translation>pandoc 未能在 {seconds} 秒内生成 Word 文档；未写入任何文件。</translation>
    </message>
    <message>
        <source>pandoc could not convert the report to Word: {detail}</source>
        <translation>pandoc 无法将报告转换为 Word：{detail}</translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <source>Previous match (Shift+Enter)</source>
        <translation>上一个（Shift+Enter）</translation>
    </message>
    <message>
        <source>Next match (Enter)</source>
        <translation>下一个（Enter）</translation>
    </message>
    <message>
        <source>Match case</source>
        <translation>区分大小写</translation>
    </message>
    <message>
        <source>Close (Esc)</source>
        <translation>关闭（Esc）</translation>
    </message>
    <message>
        <source>Replace with</source>
        <translation>替换为</translation>
    </message>
    <message>
        <source>Replace</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Replace All</source>
        <translation>全部替换</translation>
    </message>
    <message>
        <source>No matches</source>
        <translation>没有匹配</translation>
    </message>
    <message>
        <source>{0} of {1}</source>
        <translation>第 {0} 个，共 {1} 个</translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n 个匹配</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n replaced</source>
        <translation>
            <numerusform>已替换 %n 处</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>HistoryDock</name>
    <message>
        <source>History</source>
        <translation>历史记录</translation>
    </message>
</context>
<context>
    <name>HistoryList</name>
    <message>
        <source>cannot be opened</source>
        <translation>无法打开</translation>
    </message>
    <message numerus="yes">
        <source>%n page(s)</source>
        <translation>
            <numerusform>%n 页</numerusform>
        </translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>needs review</source>
        <translation>需要审阅</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>stopped midway</source>
        <translation>中途停止</translation>
    </message>
    <message>
        <source>&amp;Reopen Run</source>
        <translation>重新打开运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Delete Run…</source>
        <translation>删除运行(&amp;D)…</translation>
    </message>
    <message>
        <source>Delete the chosen run (moved to the trash where the system has one)</source>
        <translation>删除选中的运行（系统有回收站时移入回收站）</translation>
    </message>
    <message>
        <source>Choose a run in History first</source>
        <translation>请先在历史记录中选择一次运行</translation>
    </message>
    <message>
        <source>{0} #{1}</source>
        <translation>{0} #{1}</translation>
    </message>
    <message>
        <source>Delete the run for good?</source>
        <translation>永久删除这次运行？</translation>
    </message>
    <message>
        <source>There is no trash for {0} on this system. Delete the run “{1}” and everything in its folder for good? This cannot be undone.</source>
        <translation>本系统没有可存放 {0} 的回收站。要永久删除运行“{1}”及其文件夹中的所有内容吗？此操作无法撤销。</translation>
    </message>
</context>
<context>
    <name>LatexEditor</name>
    <message>
        <source>No suggestions</source>
        <translation>无拼写建议</translation>
    </message>
    <message>
        <source>Add “{0}” to Dictionary</source>
        <translation>将“{0}”加入词典</translation>
    </message>
    <message>
        <source>Ignore “{0}”</source>
        <translation>忽略“{0}”</translation>
    </message>
</context>
<context>
    <name>LogPane</name>
    <message>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Message</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>Compile log: not compiled yet</source>
        <translation>编译日志：尚未编译</translation>
    </message>
    <message>
        <source>Compile log: no errors or warnings</source>
        <translation>编译日志：没有错误或警告</translation>
    </message>
    <message>
        <source>Compile log: {0}, {1}</source>
        <translation>编译日志：{0}，{1}</translation>
    </message>
    <message numerus="yes">
        <source>%n error(s)</source>
        <translation>
            <numerusform>%n 个错误</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n warning(s)</source>
        <translation>
            <numerusform>%n 个警告</numerusform>
        </translation>
    </message>
    <message>
        <source>Show or hide the errors and warnings of the last compile</source>
        <translation>显示或隐藏上次编译的错误和警告</translation>
    </message>
    <message>
        <source>(in {0}, not in the report&apos;s source)</source>
        <translation>（在 {0} 中，不在报告源文件里）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Labwright</source>
        <translation>Labwright</translation>
    </message>
    <message>
        <source>Show in Folder</source>
        <translation>在文件夹中显示</translation>
    </message>
    <message>
        <source>{0} — run {1}</source>
        <translation>{0} — 运行 {1}</translation>
    </message>
    <message>
        <source>run {0}</source>
        <translation>运行 {0}</translation>
    </message>
    <message>
        <source>Choose the folder of experiment material</source>
        <translation>选择实验材料文件夹</translation>
    </message>
    <message>
        <source>A run is going; cancel it before opening another folder.</source>
        <translation>正在运行，请先取消再打开其他文件夹。</translation>
    </message>
    <message>
        <source>Export the report as a .zip or a folder</source>
        <translation>将报告导出为 .zip 压缩包或文件夹</translation>
    </message>
    <message>
        <source>Wait for the run to finish</source>
        <translation>请等待运行结束</translation>
    </message>
    <message>
        <source>There is no report to export yet</source>
        <translation>还没有可导出的报告</translation>
    </message>
    <message>
        <source>Exported to {0}</source>
        <translation>已导出到 {0}</translation>
    </message>
    <message>
        <source>About Labwright</source>
        <translation>关于 Labwright</translation>
    </message>
    <message>
        <source>Labwright {0}: turns a folder of lab material into a LaTeX report you review.</source>
        <translation>Labwright {0}：把一个实验材料文件夹变成一份由你审阅的 LaTeX 报告。</translation>
    </message>
    <message>
        <source>Quit Labwright?</source>
        <translation>退出 Labwright？</translation>
    </message>
    <message>
        <source>A run is in progress — stop it and quit?</source>
        <translation>正在运行——要停止运行并退出吗？</translation>
    </message>
    <message>
        <source>tick “Offline”</source>
        <translation>勾选“离线”</translation>
    </message>
    <message>
        <source>This draft needs your review: {0}</source>
        <translation>这份草稿需要你审阅：{0}</translation>
    </message>
    <message>
        <source>A run is going; cancel it before opening another.</source>
        <translation>正在运行，请先取消再打开其他运行。</translation>
    </message>
    <message>
        <source>This run cannot be opened: {0}</source>
        <translation>无法打开这次运行：{0}</translation>
    </message>
    <message>
        <source>“{0}” is still going: cancel it before deleting it.</source>
        <translation>“{0}”仍在运行：请先取消，再删除。</translation>
    </message>
    <message>
        <source>“{0}” could not be deleted: {1}</source>
        <translation>无法删除“{0}”：{1}</translation>
    </message>
    <message>
        <source>“{0}” was moved to the trash.</source>
        <translation>“{0}”已移入回收站。</translation>
    </message>
    <message>
        <source>“{0}” was deleted.</source>
        <translation>“{0}”已删除。</translation>
    </message>
    <message>
        <source>Start a run on this folder</source>
        <translation>对这个文件夹开始运行</translation>
    </message>
    <message>
        <source>No file manager could be opened. The export is at: {0}</source>
        <translation>无法打开文件管理器。导出的文件在：{0}</translation>
    </message>
    <message>
        <source>Copy Path</source>
        <translation>复制路径</translation>
    </message>
</context>
<context>
    <name>OpenItems</name>
    <message>
        <source>{word} placeholder: {line}</source>
        <translation>{word} 占位：{line}</translation>
    </message>
    <message>
        <source>{word} (comment): {comment}</source>
        <translation>{word}（注释）：{comment}</translation>
    </message>
    <message>
        <source>{word}: {text}</source>
        <translation>{word}：{text}</translation>
    </message>
    <message>
        <source>Requirement not supported by the material: {requirement}</source>
        <translation>材料不支持的要求：{requirement}</translation>
    </message>
    <message>
        <source>Requirement not checked against the material: {requirement}</source>
        <translation>尚未对照材料核查的要求：{requirement}</translation>
    </message>
    <message>
        <source>Unresolved citation: \cite{{{key}}} has no entry in refs.bib</source>
        <translation>未解析的引用：\cite{{{key}}} 在 refs.bib 中没有条目</translation>
    </message>
    <message>
        <source>Compile error: {message}</source>
        <translation>编译错误：{message}</translation>
    </message>
    <message>
        <source>Compile error in {where}: {message}</source>
        <translation>{where} 中的编译错误：{message}</translation>
    </message>
    <message>
        <source>Compile warning: {warning}</source>
        <translation>编译警告：{warning}</translation>
    </message>
    <message>
        <source>Figure not in the report: {path}</source>
        <translation>未用于报告的图：{path}</translation>
    </message>
    <message>
        <source>Figure not in the report: {path} ({caption})</source>
        <translation>未用于报告的图：{path}（{caption}）</translation>
    </message>
    <message>
        <source>{number} is not in the material that was read.</source>
        <translation>{number} 不在已读的材料中。</translation>
    </message>
    <message>
        <source>{number} is not in the material that was read (closest in the material: {closest}, {where}).</source>
        <translation>{number} 不在已读的材料中（材料中最接近的：{closest}，{where}）。</translation>
    </message>
</context>
<context>
    <name>PdfView</name>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>Fit &amp;Width</source>
        <translation>适合宽度(&amp;W)</translation>
    </message>
    <message>
        <source>Fit &amp;Page</source>
        <translation>适合页面(&amp;P)</translation>
    </message>
    <message>
        <source>No PDF yet.</source>
        <translation>尚无 PDF。</translation>
    </message>
    <message>
        <source>No PDF yet</source>
        <translation>尚无 PDF</translation>
    </message>
    <message>
        <source>Page {0} of {1}</source>
        <translation>第 {0} 页，共 {1} 页</translation>
    </message>
</context>
<context>
    <name>Reasons</name>
    <message>
        <source>Offline run: no model read the material. The report is a skeleton built from the data files, with TODOs where prose is needed.</source>
        <translation>离线运行：没有模型阅读材料。报告是根据数据文件生成的框架，需要文字的地方留有 TODO。</translation>
    </message>
    <message>
        <source>Exploration stopped: the model kept repeating the same calls.</source>
        <translation>探索已停止：模型一再重复相同的调用。</translation>
    </message>
    <message>
        <source>Exploration stopped: the model went round in a circle of the same few calls.</source>
        <translation>探索已停止：模型在几次相同的调用之间兜圈子。</translation>
    </message>
    <message>
        <source>Exploration stopped: the model kept making calls that brought nothing new.</source>
        <translation>探索已停止：模型不断进行没有新信息的调用。</translation>
    </message>
    <message>
        <source>Exploration stopped: the model used all its turns without finishing.</source>
        <translation>探索已停止：模型用完了所有轮次仍未结束。</translation>
    </message>
    <message>
        <source>The token or money budget ran out.</source>
        <translation>词元或费用预算已用完。</translation>
    </message>
    <message>
        <source>The run&apos;s time limit ran out; the report was written from what was gathered by then.</source>
        <translation>本次运行的时间上限已到；报告依据此前收集到的内容写成。</translation>
    </message>
    <message>
        <source>Exploration stopped before the model finished it.</source>
        <translation>模型完成之前探索就停止了。</translation>
    </message>
    <message>
        <source>Nothing was read: the draft is a skeleton with TODOs.</source>
        <translation>没有读取任何内容：草稿是带 TODO 的框架。</translation>
    </message>
    <message>
        <source>Exploration stopped because the model failed.</source>
        <translation>模型出错，探索已停止。</translation>
    </message>
    <message>
        <source>Exploration stopped: the model kept answering in plain text instead of calling tools.</source>
        <translation>探索已停止：模型一直用文字作答，而不调用工具。</translation>
    </message>
    <message>
        <source>Exploration was cancelled before the model finished it.</source>
        <translation>模型完成之前探索已被取消。</translation>
    </message>
    <message>
        <source>The write model did not return a usable LaTeX document, even after retries, so this draft is the skeleton filled with the findings; complete its TODOs.</source>
        <translation>写作模型多次重试后仍未返回可用的 LaTeX 文档，因此这份草稿是填入了发现的框架；请补全其中的 TODO。</translation>
    </message>
    <message>
        <source>The report did not compile; the last PDF that compiled is kept.</source>
        <translation>报告编译失败；保留上一次编译成功的 PDF。</translation>
    </message>
    <message>
        <source>Numbers of the report not found in the material that was read: {count}. Correct each one or say where it comes from.</source>
        <translation>报告中有 {count} 个数字在已读材料中找不到。请逐一更正或注明出处。</translation>
    </message>
    <message>
        <source>The model failed ({kind}).</source>
        <translation>模型出错（{kind}）。</translation>
    </message>
    <message>
        <source>The run was cancelled; the report holds what was done by then.</source>
        <translation>运行已取消；报告包含到那时为止完成的内容。</translation>
    </message>
    <message>
        <source>Labwright itself failed during the run (error.txt in the run folder has the details); the report holds what was done before that.</source>
        <translation>Labwright 自身在运行中出错（详情见运行文件夹中的 error.txt）；报告包含此前完成的内容。</translation>
    </message>
    <message>
        <source>Degraded: {reason}.</source>
        <translation>降级：{reason}。</translation>
    </message>
    <message>
        <source>The model asked for something it already had; it got the earlier answer instead.</source>
        <translation>模型请求了已有的内容，直接返回了之前的结果。</translation>
    </message>
    <message>
        <source>The model kept repeating itself and was asked to move on or finish.</source>
        <translation>模型一再重复，已提醒它换个方向或结束。</translation>
    </message>
    <message>
        <source>The model was stuck in a loop; exploration stopped and the report is written from what was read.</source>
        <translation>模型陷入循环，探索已停止，报告将根据已读内容撰写。</translation>
    </message>
    <message>
        <source>The model re-read lines it had already read.</source>
        <translation>模型重复读取了已读过的行。</translation>
    </message>
    <message>
        <source>A tool failed {failure_limit} times in a row and was withdrawn.</source>
        <translation>某个工具连续失败 {failure_limit} 次，已被停用。</translation>
    </message>
    <message>
        <source>The model tried to finish without reading anything; it was refused.</source>
        <translation>模型未读任何内容就想结束，已被拒绝。</translation>
    </message>
    <message>
        <source>The step budget is used up; the model must finish now.</source>
        <translation>步数预算已用完，模型必须现在结束。</translation>
    </message>
    <message>
        <source>The model did not finish in time; exploration stopped.</source>
        <translation>模型未能按时结束，探索已停止。</translation>
    </message>
    <message>
        <source>A token, money or time budget is nearly or fully used.</source>
        <translation>词元、费用或时间预算即将或已经用完。</translation>
    </message>
    <message>
        <source>The model&apos;s answer was not a usable LaTeX document; it was asked again.</source>
        <translation>模型的回答不是可用的 LaTeX 文档，已要求重写。</translation>
    </message>
    <message>
        <source>The model asked for a path outside the folder; it was refused.</source>
        <translation>模型请求了文件夹之外的路径，已被拒绝。</translation>
    </message>
    <message>
        <source>Figure code tried something not allowed; it was refused.</source>
        <translation>绘图代码尝试了不允许的操作，已被拒绝。</translation>
    </message>
    <message>
        <source>The report did not compile; the model was asked to fix it.</source>
        <translation>报告编译失败，已要求模型修复。</translation>
    </message>
    <message>
        <source>The model went round in a circle of the same few calls.</source>
        <translation>模型在几次相同的调用之间兜圈子。</translation>
    </message>
    <message>
        <source>The model kept making calls that brought nothing new.</source>
        <translation>模型不断进行没有新信息的调用。</translation>
    </message>
    <message>
        <source>A tool failed with the same error {error_storm_at} times in its last {error_storm_window} calls and was withdrawn.</source>
        <translation>某个工具在最近 {error_storm_window} 次调用中 {error_storm_at} 次报同一错误，已被停用。</translation>
    </message>
    <message>
        <source>A model call took longer than its time limit and was stopped.</source>
        <translation>一次模型调用超过了时间上限，已被停止。</translation>
    </message>
    <message>
        <source>The model asked for more than {max_calls_per_turn} tools at once; only the first ones ran.</source>
        <translation>模型一次请求了超过 {max_calls_per_turn} 个工具调用，只执行了前面几个。</translation>
    </message>
    <message>
        <source>The run has made {max_figures} figures, as many as it may; no more are made.</source>
        <translation>本次运行已生成 {max_figures} 张图，达到上限，不再生成新图。</translation>
    </message>
    <message>
        <source>The model answered in plain text instead of calling a tool; it was told what to do. {no_tool_call_stop_at} such answers in a row end exploration.</source>
        <translation>模型只用文字作答、没有调用工具；已告诉它该怎么做。连续 {no_tool_call_stop_at} 次这样作答将结束探索。</translation>
    </message>
    <message>
        <source>The model server does not honour a forced tool call; the model was told in words to finish instead.</source>
        <translation>模型服务器不支持强制工具调用；已改用文字告诉模型结束探索。</translation>
    </message>
    <message>
        <source>A guard stepped in.</source>
        <translation>防护机制介入了。</translation>
    </message>
</context>
<context>
    <name>ResultTabs</name>
    <message>
        <source>The draft appears here while it is written.</source>
        <translation>草稿会在撰写时显示在这里。</translation>
    </message>
    <message>
        <source>The report&apos;s LaTeX source appears here when the run has written it.</source>
        <translation>运行写出报告后，其 LaTeX 源码会显示在这里。</translation>
    </message>
    <message>
        <source>Live draft</source>
        <translation>实时草稿</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Findings</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>The run was cancelled before the report was compiled, so there is no PDF.</source>
        <translation>运行在报告编译之前已被取消，所以没有 PDF。</translation>
    </message>
    <message>
        <source>No PDF: the report was not compiled (see the timeline for why).</source>
        <translation>没有 PDF：报告未编译（原因见左侧时间线）。</translation>
    </message>
    <message>
        <source>The PDF appears here when the run has compiled the report.</source>
        <translation>运行编译好报告后，PDF 会显示在这里。</translation>
    </message>
    <message>
        <source>Inputs:</source>
        <translation>输入：</translation>
    </message>
    <message>
        <source>No findings yet.</source>
        <translation>尚无发现。</translation>
    </message>
    <message>
        <source>Exploration did not conclude:</source>
        <translation>探索未得出结论：</translation>
    </message>
    <message>
        <source>Goal:</source>
        <translation>目标：</translation>
    </message>
    <message>
        <source>Key findings</source>
        <translation>主要发现</translation>
    </message>
    <message>
        <source>Requirements</source>
        <translation>要求</translation>
    </message>
    <message>
        <source>Files read</source>
        <translation>已读文件</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>方法</translation>
    </message>
</context>
<context>
    <name>ReviewPane</name>
    <message>
        <source>Open items</source>
        <translation>待处理事项</translation>
    </message>
    <message>
        <source>Recompile</source>
        <translation>重新编译</translation>
    </message>
    <message>
        <source>Build the PDF again</source>
        <translation>重新生成 PDF</translation>
    </message>
    <message>
        <source>Recompile on save</source>
        <translation>保存时重新编译</translation>
    </message>
    <message>
        <source>Show line in PDF</source>
        <translation>在 PDF 中显示此行</translation>
    </message>
    <message>
        <source>Show the cursor&apos;s line in the preview</source>
        <translation>在预览中显示光标所在行</translation>
    </message>
    <message>
        <source>Re-draft…</source>
        <translation>重新撰写…</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Back to the run</source>
        <translation>返回运行</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>改动</translation>
    </message>
    <message>
        <source>&amp;Recompile</source>
        <translation>重新编译(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save Now</source>
        <translation>立即保存(&amp;S)</translation>
    </message>
    <message>
        <source>Show Line in &amp;PDF</source>
        <translation>在 PDF 中显示此行(&amp;P)</translation>
    </message>
    <message>
        <source>Re-&amp;draft…</source>
        <translation>重新撰写(&amp;D)…</translation>
    </message>
    <message>
        <source>Compile &amp;Log</source>
        <translation>编译日志(&amp;L)</translation>
    </message>
    <message>
        <source>Reviewing &lt;b&gt;{0}&lt;/b&gt; — run {1}</source>
        <translation>正在审阅 &lt;b&gt;{0}&lt;/b&gt; — 运行 {1}</translation>
    </message>
    <message>
        <source>This run was offline: no model read the material, so there is nothing to draft from. Start a new run with a model instead.</source>
        <translation>这次是离线运行：没有模型读过材料，因此没有可供撰写的内容。请改用模型开始新的运行。</translation>
    </message>
    <message>
        <source>The material folder of this run is gone; it is needed to draft.</source>
        <translation>这次运行的材料文件夹已不存在，而撰写需要它。</translation>
    </message>
    <message>
        <source>Write the report again from what was read, with a note for the writer</source>
        <translation>根据已读内容重新撰写报告，可附上给撰写者的说明</translation>
    </message>
    <message>
        <source>line {0}</source>
        <translation>第 {0} 行</translation>
    </message>
    <message>
        <source>✓ Saved</source>
        <translation>✓ 已保存</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存…</translation>
    </message>
    <message>
        <source>● Unsaved changes</source>
        <translation>● 有未保存的修改</translation>
    </message>
    <message>
        <source>✗ Not saved</source>
        <translation>✗ 未保存</translation>
    </message>
    <message>
        <source>Could not save: {0}</source>
        <translation>无法保存：{0}</translation>
    </message>
    <message>
        <source>Every edit is saved to the run folder within a second.</source>
        <translation>每次编辑都会在一秒内保存到运行文件夹。</translation>
    </message>
    <message>
        <source>Compiling…</source>
        <translation>正在编译…</translation>
    </message>
    <message>
        <source>Compile failed: {0}</source>
        <translation>编译失败：{0}</translation>
    </message>
    <message>
        <source>Compiled in {0:.1f} s</source>
        <translation>编译用时 {0:.1f} 秒</translation>
    </message>
    <message numerus="yes">
        <source>%n compile error(s): the preview shows the last good PDF</source>
        <translation>
            <numerusform>%n 个编译错误：预览显示的是上一次成功的 PDF</numerusform>
        </translation>
    </message>
    <message>
        <source>SyncTeX has no position for this line.</source>
        <translation>SyncTeX 没有这一行的位置。</translation>
    </message>
    <message>
        <source>The run was cancelled before its PDF was built. Recompile builds it from the source on the left.</source>
        <translation>运行在生成 PDF 之前已被取消。“重新编译”会用左侧的源码生成它。</translation>
    </message>
    <message>
        <source>No PDF yet. Recompile builds it from the source on the left.</source>
        <translation>尚无 PDF。“重新编译”会用左侧的源码生成它。</translation>
    </message>
    <message>
        <source>Re-draft</source>
        <translation>重新撰写</translation>
    </message>
    <message>
        <source>Write the report again from what was read (no new exploration). A note for the writer, optional (e.g. “use SI units”, “shorter”):</source>
        <translation>根据已读内容重新撰写报告（不再重新探索）。可选：给写作模型的说明（例如“使用国际单位制”“写短一些”）：</translation>
    </message>
    <message>
        <source>Export failed: {0}</source>
        <translation>导出失败：{0}</translation>
    </message>
    <message>
        <source>Exported to {0}</source>
        <translation>已导出到 {0}</translation>
    </message>
</context>
<context>
    <name>RunControl</name>
    <message>
        <source>These settings cannot start a run: {0}</source>
        <translation>这些设置无法开始运行：{0}</translation>
    </message>
    <message>
        <source>No API key is set for {0}. Add one in Settings ({1}), or tick “Offline” to write a skeleton report without a model.</source>
        <translation>尚未为 {0} 设置 API 密钥。请在设置（{1}）中添加，或勾选“离线”以不用模型生成报告框架。</translation>
    </message>
    <message>
        <source>Open Settings</source>
        <translation>打开设置</translation>
    </message>
    <message>
        <source>Landlock (files and signals)</source>
        <translation>Landlock（文件与信号）</translation>
    </message>
    <message>
        <source>Landlock (files)</source>
        <translation>Landlock（文件）</translation>
    </message>
    <message>
        <source>no network</source>
        <translation>无网络</translation>
    </message>
    <message>
        <source>seccomp</source>
        <translation>seccomp</translation>
    </message>
    <message>
        <source>Model-written code runs in a sandbox: {0}.</source>
        <translation>模型编写的代码在沙箱中运行：{0}。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>No operating-system sandbox on this machine: model-written code is held only by Labwright&apos;s own checks.</source>
        <translation>本机没有操作系统级沙箱：模型编写的代码只受 Labwright 自身检查的约束。</translation>
    </message>
    <message>
        <source>No sandbox</source>
        <translation>没有沙箱</translation>
    </message>
    <message>
        <source>This machine offers no operating-system sandbox, so figure code written by the model would be held only by Labwright&apos;s own checks.</source>
        <translation>本机不提供操作系统级沙箱，模型编写的绘图代码只受 Labwright 自身检查的约束。</translation>
    </message>
    <message>
        <source>Without model figures, Labwright plots the data tables itself. A folder from someone you do not trust should not get model figures here.</source>
        <translation>不使用模型绘图时，Labwright 会自己绘制数据表。来源不可信的文件夹不应在此使用模型绘图。</translation>
    </message>
    <message>
        <source>Allow model figures</source>
        <translation>允许模型绘图</translation>
    </message>
    <message>
        <source>Without model figures</source>
        <translation>不使用模型绘图</translation>
    </message>
    <message>
        <source>Another server</source>
        <translation>另一个服务器</translation>
    </message>
    <message>
        <source>This run was made with the server {0}. A re-draft sends the run&apos;s findings and your API key to the server of your settings: {1}.</source>
        <translation>这次运行是用服务器 {0} 完成的。重新起草会把运行的发现和你的 API 密钥发送到你设置中的服务器：{1}。</translation>
    </message>
    <message>
        <source>A run folder from someone else may name their own server; Labwright never uses it.</source>
        <translation>别人给的运行文件夹可能写着他们自己的服务器；Labwright 从不使用它。</translation>
    </message>
    <message>
        <source>Use my settings ({0})</source>
        <translation>使用我的设置（{0}）</translation>
    </message>
</context>
<context>
    <name>RunHeader</name>
    <message>
        <source>Scanning…</source>
        <translation>正在扫描…</translation>
    </message>
    <message>
        <source>The folder could not be scanned: {0}</source>
        <translation>无法扫描该文件夹：{0}</translation>
    </message>
    <message>
        <source>{0} files: {1} documents, {2} images, {3} data, {4} other</source>
        <translation>{0} 个文件：{1} 个文档，{2} 张图片，{3} 个数据文件，{4} 个其他文件</translation>
    </message>
    <message numerus="yes">
        <source>%n hidden</source>
        <translation>
            <numerusform>%n 个隐藏</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n too large to read</source>
        <translation>
            <numerusform>%n 个过大无法读取</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n skipped</source>
        <translation>
            <numerusform>%n 个已跳过</numerusform>
        </translation>
    </message>
    <message>
        <source>run {0}</source>
        <translation>运行 {0}</translation>
    </message>
    <message>
        <source>Run folder: {0}</source>
        <translation>运行文件夹：{0}</translation>
    </message>
    <message>
        <source>This folder holds nothing Labwright reads: its {0} hidden and {1} skipped entries are left out. Add your measurements, the lab manual or photos, or open another folder.</source>
        <translation>这个文件夹里没有 Labwright 会读取的内容：其中 {0} 个隐藏项和 {1} 个跳过项不计入。请放入测量数据、实验讲义或照片，或打开另一个文件夹。</translation>
    </message>
    <message>
        <source>This folder is empty: there is nothing to read. Add your measurements, the lab manual or photos, or open another folder.</source>
        <translation>这个文件夹是空的，没有可读取的内容。请放入测量数据、实验讲义或照片，或打开另一个文件夹。</translation>
    </message>
    <message>
        <source>{0} ({1})</source>
        <translation>{0}（{1}）</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>RunMeter</name>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Step {0} of {1}: {2}</source>
        <translation>第 {0}/{1} 步：{2}</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Done — needs review</source>
        <translation>完成——需要审阅</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>{0:,} tokens</source>
        <translation>{0:,} 个词元</translation>
    </message>
    <message>
        <source>time limit {0:g} min</source>
        <translation>时间上限 {0:g} 分钟</translation>
    </message>
</context>
<context>
    <name>RunOptions</name>
    <message>
        <source>Template</source>
        <translation>模板</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Revisions</source>
        <translation>修订轮数</translation>
    </message>
    <message>
        <source>Offline (no model)</source>
        <translation>离线（不用模型）</translation>
    </message>
    <message>
        <source>Write a skeleton report from the data alone, with no language model.</source>
        <translation>只根据数据生成报告框架，不调用语言模型。</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Review and export…</source>
        <translation>审阅与导出…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
</context>
<context>
    <name>Settings</name>
    <message>
        <source>Report &amp;language:</source>
        <translation>报告语言(&amp;L)：</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>English</source>
        <translation>English</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>&amp;Reflection rounds:</source>
        <translation>修订轮数(&amp;R)：</translation>
    </message>
    <message>
        <source>Template default</source>
        <translation>模板默认</translation>
    </message>
    <message>
        <source>Token &amp;budget per run:</source>
        <translation>每次运行的词元预算(&amp;B)：</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>&amp;Time limit per run:</source>
        <translation>每次运行的时间上限(&amp;T)：</translation>
    </message>
    <message>
        <source>When the time is up, exploring stops and the report is written from what was gathered; the run ends marked for review.</source>
        <translation>时间一到，探索即停止，报告根据已收集的内容撰写；本次运行结束时会标记为待审阅。</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>&amp;Interface language:</source>
        <translation>界面语言(&amp;I)：</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Custom URL</source>
        <translation>自定义地址</translation>
    </message>
    <message>
        <source>Choose Custom URL to enter the address of another server.</source>
        <translation>选择“自定义地址”以填写其他服务器的地址。</translation>
    </message>
    <message>
        <source>A key typed here replaces the stored one when you press OK. It is kept in the system keyring, never in a file.</source>
        <translation type="vanished">在此输入的密钥会在按“确定”后替换已保存的密钥。密钥保存在系统钥匙串中，绝不写入文件。</translation>
    </message>
    <message>
        <source>Forget key</source>
        <translation>删除密钥</translation>
    </message>
    <message>
        <source>&amp;Provider:</source>
        <translation>服务商(&amp;P)：</translation>
    </message>
    <message>
        <source>Base &amp;URL:</source>
        <translation>基础地址(&amp;U)：</translation>
    </message>
    <message>
        <source>API &amp;key:</source>
        <translation>API 密钥(&amp;K)：</translation>
    </message>
    <message>
        <source>Model provider</source>
        <translation>模型服务商</translation>
    </message>
    <message>
        <source>None (images are not examined)</source>
        <translation>无（不查看图片）</translation>
    </message>
    <message>
        <source>&amp;Exploring:</source>
        <translation>探索(&amp;E)：</translation>
    </message>
    <message>
        <source>&amp;Writing:</source>
        <translation>写作(&amp;W)：</translation>
    </message>
    <message>
        <source>&amp;Vision:</source>
        <translation>视觉(&amp;V)：</translation>
    </message>
    <message>
        <source>Model for each role</source>
        <translation>各角色使用的模型</translation>
    </message>
    <message>
        <source>&amp;Test connection</source>
        <translation>测试连接(&amp;T)</translation>
    </message>
    <message>
        <source>{0} (on this computer)</source>
        <translation>{0}（本机）</translation>
    </message>
    <message>
        <source>Lists the models the server offers and checks that the exploring model can call tools, using the key above.</source>
        <translation>用上面的密钥列出服务器提供的模型，并检查探索模型能否调用工具。</translation>
    </message>
    <message>
        <source>Double-click a model to use it for writing.</source>
        <translation type="vanished">双击一个模型，将其用于写作。</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Default for the report language</source>
        <translation>按报告语言默认</translation>
    </message>
    <message>
        <source>Te&amp;mplate:</source>
        <translation>模板(&amp;M)：</translation>
    </message>
    <message>
        <source>Report defaults</source>
        <translation>报告默认值</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Prompt $/1M</source>
        <translation>输入 $/百万</translation>
    </message>
    <message>
        <source>Completion $/1M</source>
        <translation>输出 $/百万</translation>
    </message>
    <message>
        <source>US dollars per million prompt (input) tokens.</source>
        <translation>每百万输入词元的美元价格。</translation>
    </message>
    <message>
        <source>US dollars per million completion (output) tokens.</source>
        <translation>每百万输出词元的美元价格。</translation>
    </message>
    <message>
        <source>Add price</source>
        <translation>添加价格</translation>
    </message>
    <message>
        <source>Remove price</source>
        <translation>删除价格</translation>
    </message>
    <message>
        <source>Prices, to estimate the cost of a run:</source>
        <translation>价格（用于估算一次运行的费用）：</translation>
    </message>
    <message>
        <source>Budget and prices</source>
        <translation>预算与价格</translation>
    </message>
    <message>
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <source>The stored key will be forgotten when you press OK.</source>
        <translation>按“确定”后将删除已保存的密钥。</translation>
    </message>
    <message>
        <source>stored: {key} (keyring)</source>
        <translation>已保存：{key}（钥匙串）</translation>
    </message>
    <message>
        <source>from {name}</source>
        <translation>来自 {name}</translation>
    </message>
    <message>
        <source>Not needed: the server runs on this computer</source>
        <translation>无需密钥：服务器运行在本机</translation>
    </message>
    <message>
        <source>No system keyring. Set LABWRIGHT_API_KEY instead.</source>
        <translation type="vanished">没有系统钥匙串，请改为设置环境变量 LABWRIGHT_API_KEY。</translation>
    </message>
    <message>
        <source>No key stored. Paste your API key here.</source>
        <translation>尚未保存密钥，请在此粘贴你的 API 密钥。</translation>
    </message>
    <message>
        <source>Enter the server&apos;s base URL first.</source>
        <translation>请先填写服务器的基础地址。</translation>
    </message>
    <message>
        <source>Connecting to {url}…</source>
        <translation>正在连接 {url}…</translation>
    </message>
    <message>
        <source>Connected, but the server lists no models.</source>
        <translation>已连接，但服务器没有列出任何模型。</translation>
    </message>
    <message>
        <source>Connected. The server offers {n} models.</source>
        <translation>已连接，服务器提供 {n} 个模型。</translation>
    </message>
    <message>
        <source>{model} can call tools.</source>
        <translation>{model} 可以调用工具。</translation>
    </message>
    <message>
        <source>{model} answered in text without calling the tool (weak tool support). Exploring the folder needs a model that calls tools.</source>
        <translation>{model} 以文字作答，没有调用工具（工具调用能力弱）。探索文件夹需要能调用工具的模型。</translation>
    </message>
    <message>
        <source>{model} rejects tools (HTTP {status}): {reason}</source>
        <translation>{model} 拒绝工具调用（HTTP {status}）：{reason}</translation>
    </message>
    <message>
        <source>The tool-call test failed: {message}</source>
        <translation>工具调用测试失败：{message}</translation>
    </message>
    <message>
        <source>Closing when the connection test answers…</source>
        <translation>连接测试返回后将关闭…</translation>
    </message>
    <message>
        <source>Price row {row}: enter a model name and two prices in dollars per million tokens (for example 0.27 and 1.10).</source>
        <translation>价格第 {row} 行：请填写模型名称和两个价格（美元/百万词元，例如 0.27 和 1.10）。</translation>
    </message>
    <message>
        <source>Enter a model for exploring and one for writing.</source>
        <translation>请填写一个用于探索的模型和一个用于写作的模型。</translation>
    </message>
    <message>
        <source>Enter the server&apos;s base URL.</source>
        <translation>请填写服务器的基础地址。</translation>
    </message>
    <message>
        <source>Could not save the settings ({reason}).</source>
        <translation>无法保存设置（{reason}）。</translation>
    </message>
    <message>
        <source>A key typed here replaces the stored one when you press OK, kept where you choose below.</source>
        <translation>在此输入的密钥会在按“确定”后替换已保存的密钥，并保存在你在下方选择的位置。</translation>
    </message>
    <message>
        <source>Where to keep the key</source>
        <translation>密钥的保存位置</translation>
    </message>
    <message>
        <source>Choose where to keep the key…</source>
        <translation>选择密钥的保存位置…</translation>
    </message>
    <message>
        <source>Select a model, then choose its role with the buttons or the right-click menu; a double-click uses it for writing.</source>
        <translation>选中一个模型，再用按钮或右键菜单选择它的用途；双击则把它用于写作。</translation>
    </message>
    <message>
        <source>Use for exploring</source>
        <translation>用于探索</translation>
    </message>
    <message>
        <source>Use for writing</source>
        <translation>用于写作</translation>
    </message>
    <message>
        <source>Use for vision</source>
        <translation>用于视觉</translation>
    </message>
    <message>
        <source>Keep in the system keyring ({0})</source>
        <translation>保存在系统钥匙串中（{0}）</translation>
    </message>
    <message>
        <source>Keep in a file only I can read</source>
        <translation>保存在只有我能读取的文件中</translation>
    </message>
    <message>
        <source>Keep for this session only</source>
        <translation>仅在本次会话中保留</translation>
    </message>
    <message>
        <source>The system keyring ({0}) keeps the key encrypted, unlocked when you log in.</source>
        <translation>系统钥匙串（{0}）加密保存密钥，在你登录时解锁。</translation>
    </message>
    <message>
        <source>Saved in {0}, which only your user account can read (as gh keeps its token).</source>
        <translation>保存在 {0}，只有你的用户账户能读取（gh 也这样保存令牌）。</translation>
    </message>
    <message>
        <source>Kept in memory until Labwright closes; nothing is written to disk.</source>
        <translation>只保留在内存中，直到 Labwright 关闭；不写入磁盘。</translation>
    </message>
    <message>
        <source>This computer has no system keyring (no Secret Service). Labwright can keep the key in a file only you can read, or for this session only.</source>
        <translation>这台电脑没有系统钥匙串（没有 Secret Service）。Labwright 可以把密钥保存在只有你能读取的文件中，或仅在本次会话中保留。</translation>
    </message>
    <message>
        <source>Choose where to keep the key: in a file only you can read, or for this session only.</source>
        <translation>请选择密钥的保存位置：只有你能读取的文件，或仅限本次会话。</translation>
    </message>
    <message>
        <source>stored: {key} (file)</source>
        <translation>已保存：{key}（文件）</translation>
    </message>
    <message>
        <source>stored: {key} (this session)</source>
        <translation>已保存：{key}（本次会话）</translation>
    </message>
    <message>
        <source>Start Ollama with {0}, then download the model with {1}.</source>
        <translation>用 {0} 启动 Ollama，再用 {1} 下载模型。</translation>
    </message>
    <message>
        <source>Start LM Studio&apos;s server (its Developer tab, or {0}), then download and load the model: {1}, {2}.</source>
        <translation>启动 LM Studio 的服务器（在其“开发者”页，或运行 {0}），再下载并加载模型：{1}，{2}。</translation>
    </message>
    <message>
        <source>Start the server with your model file: {0} (--jinja lets the model call tools).</source>
        <translation>用你的模型文件启动服务器：{0}（--jinja 让模型能调用工具）。</translation>
    </message>
    <message>
        <source>Start vLLM with tool calls turned on: {0}</source>
        <translation>启动 vLLM 并打开工具调用：{0}</translation>
    </message>
    <message>
        <source>Model for exploring set to {0}.</source>
        <translation>探索模型已设为 {0}。</translation>
    </message>
    <message>
        <source>Model for writing set to {0}.</source>
        <translation>写作模型已设为 {0}。</translation>
    </message>
    <message>
        <source>Model for vision set to {0}.</source>
        <translation>视觉模型已设为 {0}。</translation>
    </message>
    <message>
        <source>tick “Offline” in the main window</source>
        <translation>在主窗口勾选“离线”</translation>
    </message>
</context>
<context>
    <name>Steps</name>
    <message>
        <source>{path}: {count} entries</source>
        <translation>{path}：{count} 项</translation>
    </message>
    <message>
        <source>{path}: empty</source>
        <translation>{path}：空</translation>
    </message>
    <message>
        <source>{path}: unreadable</source>
        <translation>{path}：无法读取</translation>
    </message>
    <message>
        <source>{path}: not a folder</source>
        <translation>{path}：不是文件夹</translation>
    </message>
    <message>
        <source>{path}: a folder</source>
        <translation>{path}：是文件夹</translation>
    </message>
    <message>
        <source>{path}: no such file</source>
        <translation>{path}：没有这个文件</translation>
    </message>
    <message>
        <source>{path}: no such folder</source>
        <translation>{path}：没有这个文件夹</translation>
    </message>
    <message>
        <source>{path} lines {start}–{end}</source>
        <translation>{path} 第 {start}–{end} 行</translation>
    </message>
    <message>
        <source>{path} lines {start}–{end} of {total}</source>
        <translation>{path} 第 {start}–{end} 行（共 {total} 行）</translation>
    </message>
    <message>
        <source>{path} lines {start}–{end} (nothing new)</source>
        <translation>{path} 第 {start}–{end} 行（没有新内容）</translation>
    </message>
    <message>
        <source>{path} lines {start}–{end} of {total} (nothing new)</source>
        <translation>{path} 第 {start}–{end} 行（共 {total} 行，没有新内容）</translation>
    </message>
    <message>
        <source>{path}: reading cancelled</source>
        <translation>{path}：读取已取消</translation>
    </message>
    <message>
        <source>{path}: {why}</source>
        <translation>{path}：{why}</translation>
    </message>
    <message>
        <source>refused path {quoted}</source>
        <translation>已拒绝路径 {quoted}</translation>
    </message>
    <message>
        <source>{path}: {facts}</source>
        <translation>{path}：{facts}</translation>
    </message>
    <message>
        <source>no vision model</source>
        <translation>没有视觉模型</translation>
    </message>
    <message>
        <source>{path}: vision model failed</source>
        <translation>{path}：视觉模型出错</translation>
    </message>
    <message>
        <source>figure {name}</source>
        <translation>图 {name}</translation>
    </message>
    <message>
        <source>{name}: refused</source>
        <translation>{name}：被拒绝</translation>
    </message>
    <message>
        <source>{name}: failed</source>
        <translation>{name}：失败</translation>
    </message>
    <message>
        <source>figures disabled (no OS sandbox)</source>
        <translation>作图已停用（没有系统沙箱）</translation>
    </message>
    <message>
        <source>analysis {name}</source>
        <translation>分析 {name}</translation>
    </message>
    <message>
        <source>{name}: printed nothing</source>
        <translation>{name}：没有输出</translation>
    </message>
    <message>
        <source>analysis disabled (no OS sandbox)</source>
        <translation>数据分析已停用（没有系统沙箱）</translation>
    </message>
    <message>
        <source>missing {fields}</source>
        <translation>缺少 {fields}</translation>
    </message>
    <message>
        <source>finished: {experiment}</source>
        <translation>已完成：{experiment}</translation>
    </message>
    <message>
        <source>not run: exploration stopped</source>
        <translation>未运行：探索已停止</translation>
    </message>
    <message>
        <source>same call earlier in this turn</source>
        <translation>本轮前面已有相同调用</translation>
    </message>
    <message>
        <source>figure limit reached ({limit})</source>
        <translation>已达作图上限（{limit}）</translation>
    </message>
    <message>
        <source>{tool}: missing required argument &apos;{name}&apos;</source>
        <translation>{tool}：缺少必需的参数“{name}”</translation>
    </message>
    <message>
        <source>{tool}: argument &apos;{name}&apos; must be a string</source>
        <translation>{tool}：参数“{name}”必须是字符串</translation>
    </message>
    <message>
        <source>{tool}: argument &apos;{name}&apos; must be an integer</source>
        <translation>{tool}：参数“{name}”必须是整数</translation>
    </message>
    <message>
        <source>{tool}: argument &apos;{name}&apos; must not be negative</source>
        <translation>{tool}：参数“{name}”不能为负数</translation>
    </message>
    <message>
        <source>{tool}: argument &apos;{name}&apos; must be a list of paths</source>
        <translation>{tool}：参数“{name}”必须是路径列表</translation>
    </message>
    <message>
        <source>{tool}: arguments are not valid JSON ({error} at char {pos})</source>
        <translation>{tool}：参数不是有效的 JSON（第 {pos} 个字符处：{error}）</translation>
    </message>
    <message>
        <source>{tool}: arguments must be a JSON object</source>
        <translation>{tool}：参数必须是 JSON 对象</translation>
    </message>
    <message>
        <source>{tool}: unknown tool; available: {available}</source>
        <translation>{tool}：未知的工具；可用的有：{available}</translation>
    </message>
    <message>
        <source>{tool} failed: {error}</source>
        <translation>{tool} 出错：{error}</translation>
    </message>
    <message>
        <source>{tool} failed {count} times in a row and was withdrawn</source>
        <translation>{tool} 连续失败 {count} 次，已被撤下</translation>
    </message>
    <message>
        <source>{tool} gave the same error {same} times in its last {window} calls whatever the arguments ({shape}); it was withdrawn</source>
        <translation>{tool} 在最近 {window} 次调用中无论参数如何都报出同一错误 {same} 次（{shape}）；已被撤下</translation>
    </message>
    <message>
        <source>{call} repeated; earlier result returned</source>
        <translation>{call} 重复；已返回先前的结果</translation>
    </message>
    <message>
        <source>{call} asked twice in one turn</source>
        <translation>{call} 在同一轮中被请求两次</translation>
    </message>
    <message>
        <source>{call} was asked {count} times with the same arguments; exploration stopped and the report is drafted from what was read.</source>
        <translation>{call} 以相同参数被请求了 {count} 次；探索已停止，报告依据已读内容起草。</translation>
    </message>
    <message>
        <source>The calls {block} went round {rounds} times with the same arguments.</source>
        <translation>调用 {block} 以相同参数循环了 {rounds} 次。</translation>
    </message>
    <message>
        <source>The calls {block} went round {rounds} times with the same arguments; exploration stopped and the report is drafted from what was read.</source>
        <translation>调用 {block} 以相同参数循环了 {rounds} 次；探索已停止，报告依据已读内容起草。</translation>
    </message>
    <message>
        <source>{tool} not run: figure limit reached ({limit})</source>
        <translation>{tool} 未运行：已达作图上限（{limit}）</translation>
    </message>
    <message>
        <source>{call} re-read lines {start}–{end} already read</source>
        <translation>{call} 重读了已读过的第 {start}–{end} 行</translation>
    </message>
    <message>
        <source>{path} was re-read {count} times without new lines; exploration stopped.</source>
        <translation>{path} 被重读 {count} 次而没有新内容；探索已停止。</translation>
    </message>
    <message>
        <source>{tool} was called again without any file read; exploration ended with nothing gathered (nothing is invented).</source>
        <translation>在未读任何文件的情况下再次调用了 {tool}；探索结束，未收集到任何内容（不会编造内容）。</translation>
    </message>
    <message>
        <source>{tool} refused ({n}/{of}): nothing has been read yet</source>
        <translation>{tool} 被拒绝（{n}/{of}）：还什么都没读</translation>
    </message>
    <message>
        <source>{idle} of the last {window} calls brought nothing new (repeats, errors, empty results, lines or listings already seen).</source>
        <translation>最近 {window} 次调用中有 {idle} 次没有带来新内容（重复、出错、空结果、已看过的行或目录）。</translation>
    </message>
    <message>
        <source>{idle} of the last {window} calls brought nothing new (repeats, errors, empty results, lines or listings already seen); exploration stopped and the report is drafted from what was read.</source>
        <translation>最近 {window} 次调用中有 {idle} 次没有带来新内容（重复、出错、空结果、已看过的行或目录）；探索已停止，报告依据已读内容起草。</translation>
    </message>
    <message>
        <source>{call} was asked {count} times with the same arguments. The model was asked to move on or finish.</source>
        <translation>{call} 以相同参数被请求了 {count} 次。已提醒模型换个方向或结束。</translation>
    </message>
    <message>
        <source>{path} was re-read {count} times without new lines. The model was asked to move on or finish.</source>
        <translation>{path} 被重读 {count} 次而没有新内容。已提醒模型换个方向或结束。</translation>
    </message>
    <message>
        <source>The calls {block} went round {rounds} times with the same arguments. The model was asked to move on or finish.</source>
        <translation>调用 {block} 以相同参数循环了 {rounds} 次。已提醒模型换个方向或结束。</translation>
    </message>
    <message>
        <source>{idle} of the last {window} calls brought nothing new (repeats, errors, empty results, lines or listings already seen). The model was asked to move on or finish.</source>
        <translation>最近 {window} 次调用中有 {idle} 次没有带来新内容（重复、出错、空结果、已看过的行或目录）。已提醒模型换个方向或结束。</translation>
    </message>
    <message>
        <source>No finish after {turns} turns and {window} final turns; exploration stopped.</source>
        <translation>{turns} 轮加 {window} 个收尾轮后仍未结束；探索已停止。</translation>
    </message>
    <message>
        <source>Turn budget of {turns} used; {tool} is now forced.</source>
        <translation>{turns} 轮的预算已用完；现在必须调用 {tool}。</translation>
    </message>
    <message>
        <source>Turn budget of {turns} used; nothing read yet, tools stay open.</source>
        <translation>{turns} 轮的预算已用完；还什么都没读，工具仍可使用。</translation>
    </message>
    <message>
        <source>The server rejected the forced tool choice ({error}); the model was told to call {tool} instead.</source>
        <translation>服务器拒绝了强制的工具选择（{error}）；已改为告诉模型调用 {tool}。</translation>
    </message>
    <message>
        <source>The model ignored the forced tool choice; the model was told to call {tool} instead.</source>
        <translation>模型忽略了强制的工具选择；已改为告诉模型调用 {tool}。</translation>
    </message>
    <message>
        <source>The model asked for {asked} tool calls in one turn; the first {cap} ran, {dropped} were not run ({names}).</source>
        <translation>模型在一轮中请求了 {asked} 次工具调用；前 {cap} 次已运行，{dropped} 次未运行（{names}）。</translation>
    </message>
    <message>
        <source>The model answered {count} turns in a row without calling a tool; exploration stopped.</source>
        <translation>模型连续 {count} 轮回答都没有调用工具；探索已停止。</translation>
    </message>
    <message>
        <source>The model answered in text without calling a tool ({n} of {of} in a row); it was told to call one.</source>
        <translation>模型用文字回答而没有调用工具（连续第 {n} 次，上限 {of}）；已提醒它调用工具。</translation>
    </message>
    <message>
        <source>{Label} reached ({spent} of {limit}); {what} stopped.</source>
        <translation>已达{Label}（{spent} / {limit}）；{what}已停止。</translation>
    </message>
    <message>
        <source>{share}% of the {label} used ({spent} of {limit}); the model was told to wrap up.</source>
        <translation>{label}已用 {share}%（{spent} / {limit}）；已提醒模型收尾。</translation>
    </message>
    <message>
        <source>{role} call cut at {seconds} s</source>
        <translation>{role}调用在 {seconds} 秒时被截断</translation>
    </message>
    <message>
        <source>{role} output rejected ({problems}); retry {n}/{of}</source>
        <translation>{role}的输出被拒绝（{problems}）；重试 {n}/{of}</translation>
    </message>
    <message>
        <source>{role}: still not a LaTeX document after {of} retries ({problems})</source>
        <translation>{role}：重试 {of} 次后仍不是 LaTeX 文档（{problems}）</translation>
    </message>
    <message>
        <source>Compile failed; fix round {n}/{of}</source>
        <translation>编译失败；修复第 {n}/{of} 轮</translation>
    </message>
    <message>
        <source>Compile failed at line {line}: {message}; fix round {n}/{of}</source>
        <translation>编译在第 {line} 行失败：{message}；修复第 {n}/{of} 轮</translation>
    </message>
    <message>
        <source>Could not read {path} ({why}); using the default settings.</source>
        <translation>无法读取 {path}（{why}）；将使用默认设置。</translation>
    </message>
    <message>
        <source>The settings file {path} is damaged ({why}); using the default settings.</source>
        <translation>设置文件 {path} 已损坏（{why}）；将使用默认设置。</translation>
    </message>
    <message>
        <source>The settings file was damaged ({why}). It was kept as {name} and the default settings are used.</source>
        <translation>设置文件已损坏（{why}），已另存为 {name}，现使用默认设置。</translation>
    </message>
    <message>
        <source>Unknown provider {name}; choose one of: {names}.</source>
        <translation>未知的服务商 {name}；可选：{names}。</translation>
    </message>
    <message>
        <source>The custom provider needs the server&apos;s URL: add --base-url URL (or set LABWRIGHT_BASE_URL).</source>
        <translation>自定义服务商需要服务器的 URL：请在设置中填写（或设置环境变量 LABWRIGHT_BASE_URL）。</translation>
    </message>
    <message>
        <source>price of {model} must be {{&apos;prompt&apos;: USD per 1M, &apos;completion&apos;: USD per 1M}}</source>
        <translation>{model} 的价格必须写成 {{&apos;prompt&apos;: 每百万词元美元, &apos;completion&apos;: 每百万词元美元}}</translation>
    </message>
    <message>
        <source>price of {model} must be non-negative numbers</source>
        <translation>{model} 的价格必须是非负数</translation>
    </message>
    <message>
        <source>{name} must be a positive number of seconds</source>
        <translation>{name} 必须是正的秒数</translation>
    </message>
    <message>
        <source>{name} must be a positive number of minutes</source>
        <translation>{name} 必须是正的分钟数</translation>
    </message>
    <message>
        <source>max_tokens: unknown role {role} (one of {roles})</source>
        <translation>max_tokens：未知的角色 {role}（应为 {roles} 之一）</translation>
    </message>
    <message>
        <source>max_tokens of {name} must be a positive integer</source>
        <translation>{name} 的 max_tokens 必须是正整数</translation>
    </message>
    <message>
        <source>{name} must be positive (leave it unset for no limit)</source>
        <translation>{name} 必须为正数（不设则不限）</translation>
    </message>
    <message>
        <source>a money budget needs prices for: {models}</source>
        <translation>费用预算需要以下模型的价格：{models}</translation>
    </message>
    <message>
        <source>Qt platform libraries</source>
        <translation>Qt 平台库</translation>
    </message>
    <message>
        <source>Display</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>TeX engine</source>
        <translation>TeX 引擎</translation>
    </message>
    <message>
        <source>TeX confinement</source>
        <translation>TeX 隔离</translation>
    </message>
    <message>
        <source>Chinese reports (ctex, CJK font)</source>
        <translation>中文报告（ctex、CJK 字体）</translation>
    </message>
    <message>
        <source>Keyring</source>
        <translation type="vanished">密钥环</translation>
    </message>
    <message>
        <source>Disk space</source>
        <translation>磁盘空间</translation>
    </message>
    <message>
        <source>Model provider</source>
        <translation>模型服务商</translation>
    </message>
    <message>
        <source>bundled with PySide6 on this system</source>
        <translation>在本系统上随 PySide6 附带</translation>
    </message>
    <message>
        <source>Qt&apos;s xcb platform plugin is not there (PySide6 is incomplete)</source>
        <translation>缺少 Qt 的 xcb 平台插件（PySide6 不完整）</translation>
    </message>
    <message>
        <source>every library of the xcb (X11) plugin is there</source>
        <translation>xcb（X11）插件所需的库齐全</translation>
    </message>
    <message>
        <source>the xcb (X11) plugin lacks {libs}</source>
        <translation>xcb（X11）插件缺少 {libs}</translation>
    </message>
    <message>
        <source>the xcb (X11) plugin lacks {libs}; Wayland works</source>
        <translation>xcb（X11）插件缺少 {libs}；Wayland 可用</translation>
    </message>
    <message>
        <source>the desktop&apos;s own</source>
        <translation>桌面系统自带</translation>
    </message>
    <message>
        <source>{shown}, but no display server answers there: the window cannot open here; `labwright run FOLDER` works</source>
        <translation>{shown}，但那里没有显示服务器响应：窗口无法在此打开；命令行 `labwright run FOLDER` 可用</translation>
    </message>
    <message>
        <source>none (DISPLAY and WAYLAND_DISPLAY are unset): the window cannot open here; `labwright run FOLDER` works</source>
        <translation>无（DISPLAY 和 WAYLAND_DISPLAY 均未设置）：窗口无法在此打开；命令行 `labwright run FOLDER` 可用</translation>
    </message>
    <message>
        <source>no xelatex, lualatex or pdflatex: reports are written as .tex but not compiled to PDF</source>
        <translation>没有 xelatex、lualatex 或 pdflatex：报告会写成 .tex，但不会编译成 PDF</translation>
    </message>
    <message>
        <source>{engine} ({path}), latexmk</source>
        <translation>{engine}（{path}），latexmk</translation>
    </message>
    <message>
        <source>{engine} ({path}), no latexmk (the engine is run directly)</source>
        <translation>{engine}（{path}），没有 latexmk（直接运行引擎）</translation>
    </message>
    <message>
        <source>confined by {layers}: TeX reads only the run&apos;s report.tex, *.bib, figures/ and build/ and the TeX and font trees, and writes only build/</source>
        <translation>由 {layers} 隔离：TeX 只读取本次运行的 report.tex、*.bib、figures/ 和 build/ 以及 TeX 与字体目录，只写入 build/</translation>
    </message>
    <message>
        <source>no confinement by the operating system here: Labwright refuses absolute, ../ and dot-file names, \write18, ~user/ and $VAR/ names written in the document, and xdvipdfmx specials and fonts outside the run and the TeX and font trees; not fenced: a ~user/ or $VAR/ name the document builds at run time, which TeX reads</source>
        <translation>本机没有操作系统隔离：Labwright 拒绝绝对路径、../ 和以点开头的文件名、\write18、文档中写出的 ~user/ 和 $VAR/ 文件名，以及指向本次运行和 TeX 与字体目录之外的 xdvipdfmx 特殊命令和字体；未隔离：文档在运行时拼出的 ~user/ 或 $VAR/ 文件名，TeX 会读取它</translation>
    </message>
    <message>
        <source>no confinement by the operating system here, and {engine} instead of XeLaTeX: Labwright refuses absolute, ../ and dot-file names, \write18, and ~user/ and $VAR/ names written in the document; not fenced: a ~user/ or $VAR/ name the document builds at run time, and the images and files {engine} opens itself</source>
        <translation>本机没有操作系统隔离，且使用 {engine} 而非 XeLaTeX：Labwright 拒绝绝对路径、../ 和以点开头的文件名、\write18，以及文档中写出的 ~user/ 和 $VAR/ 文件名；未隔离：文档在运行时拼出的 ~user/ 或 $VAR/ 文件名，以及 {engine} 自己打开的图片和文件</translation>
    </message>
    <message>
        <source>ctex and a CJK font found</source>
        <translation>已找到 ctex 和 CJK 字体</translation>
    </message>
    <message>
        <source>no {lacks}: Chinese reports do not compile</source>
        <translation>缺少 {lacks}：中文报告无法编译</translation>
    </message>
    <message>
        <source>no system keyring: keys typed in Settings cannot be stored</source>
        <translation type="vanished">没有系统密钥环：在设置中输入的密钥无法保存</translation>
    </message>
    <message>
        <source>cannot read the free space of {home}: {why}</source>
        <translation>无法读取 {home} 的可用空间：{why}</translation>
    </message>
    <message>
        <source>{free} MB free for {home}</source>
        <translation>{home} 有 {free} MB 可用空间</translation>
    </message>
    <message>
        <source>{free} MB free for {home} (runs need at least {need} MB)</source>
        <translation>{home} 有 {free} MB 可用空间（运行至少需要 {need} MB）</translation>
    </message>
    <message>
        <source>{free} MB free for {home}: enough for a few runs</source>
        <translation>{home} 有 {free} MB 可用空间：够运行几次</translation>
    </message>
    <message>
        <source>not checked (offline)</source>
        <translation>未检查（离线）</translation>
    </message>
    <message>
        <source>{provider} at {url}: no API key</source>
        <translation type="vanished">{provider}（{url}）：没有 API 密钥</translation>
    </message>
    <message>
        <source>{provider} at {url}: {error}</source>
        <translation>{provider}（{url}）：{error}</translation>
    </message>
    <message>
        <source>{provider} at {url} answers ({count} models); {probe}</source>
        <translation>{provider}（{url}）有响应（{count} 个模型）；{probe}</translation>
    </message>
    <message>
        <source>{provider} at {url} answers ({count} models; not listed: {models}); {probe}</source>
        <translation>{provider}（{url}）有响应（{count} 个模型；未列出：{models}）；{probe}</translation>
    </message>
    <message>
        <source>{model} can call tools</source>
        <translation>{model} 能调用工具</translation>
    </message>
    <message>
        <source>{model} answered in text without calling the tool (weak tool support)</source>
        <translation>{model} 用文字回答而没有调用工具（工具调用支持较弱）</translation>
    </message>
    <message>
        <source>{model} answered in text without calling the tool (weak tool support, stopped at {tokens} tokens)</source>
        <translation>{model} 用文字回答而没有调用工具（工具调用支持较弱，在 {tokens} 个词元处截止）</translation>
    </message>
    <message>
        <source>{model} rejects tools (HTTP {status}): {detail}</source>
        <translation>{model} 拒绝工具调用（HTTP {status}）：{detail}</translation>
    </message>
    <message>
        <source>the tool-call test of {model} failed: {detail}</source>
        <translation>{model} 的工具调用测试失败：{detail}</translation>
    </message>
    <message>
        <source>No API key for {provider}. Add one in Settings, set {names}, pass --api-key, or run offline (--offline, or tick “Offline” in the app).</source>
        <translation>没有 {provider} 的 API 密钥。请在设置中添加，或设置环境变量 {names}，或勾选“离线”。</translation>
    </message>
    <message>
        <source>{run_dir} is not a Labwright run directory.</source>
        <translation>{run_dir} 不是 Labwright 的运行文件夹。</translation>
    </message>
    <message>
        <source>This run is still running, or it was stopped midway: finish it first (labwright run --resume).</source>
        <translation>这次运行仍在进行，或中途被停止：请先让它完成。</translation>
    </message>
    <message>
        <source>This run was offline: no model explored the material, so there is nothing to draft from. Start a new run with a model instead.</source>
        <translation>这次运行是离线的：没有模型探索过材料，因此没有可据以重新起草的内容。请改用模型开始新的运行。</translation>
    </message>
    <message>
        <source>The run stopped before drafting ({stages} did not finish): resume it instead (labwright run --resume).</source>
        <translation>这次运行在起草前就停止了（{stages} 未完成）：请改为继续这次运行。</translation>
    </message>
    <message>
        <source>The run&apos;s material folder {folder} is gone; it is needed to draft.</source>
        <translation>这次运行的材料文件夹 {folder} 已不存在；起草需要它。</translation>
    </message>
    <message>
        <source>This run was made with the server {recorded}; your settings use {chosen}. A re-draft goes to your settings&apos; server only when you agree to it.</source>
        <translation>这次运行是用服务器 {recorded} 完成的；你的设置使用 {chosen}。只有在你同意时，重新起草才会发往你设置中的服务器。</translation>
    </message>
    <message>
        <source>This run was made with the server {recorded}, but your settings use {chosen}. A run folder does not choose where your key and material go: to continue with your own server, add --base-url {chosen} (or --provider NAME); to continue with the run&apos;s server, add --base-url {recorded}, but only if you trust it.</source>
        <translation>这次运行是用服务器 {recorded} 完成的，但你的设置使用 {chosen}。运行文件夹不能决定你的密钥和材料发往何处：要用你自己的服务器继续，请加上 --base-url {chosen}（或 --provider NAME）；要用这次运行的服务器继续，请加上 --base-url {recorded}，但仅在你信任它时这样做。</translation>
    </message>
    <message>
        <source>token budget</source>
        <translation>词元预算</translation>
    </message>
    <message>
        <source>money budget</source>
        <translation>费用预算</translation>
    </message>
    <message>
        <source>time budget</source>
        <translation>时间预算</translation>
    </message>
    <message>
        <source>exploration token budget</source>
        <translation>探索词元预算</translation>
    </message>
    <message>
        <source>exploration money budget</source>
        <translation>探索费用预算</translation>
    </message>
    <message>
        <source>Token budget</source>
        <translation>词元预算</translation>
    </message>
    <message>
        <source>Money budget</source>
        <translation>费用预算</translation>
    </message>
    <message>
        <source>Time budget</source>
        <translation>时间预算</translation>
    </message>
    <message>
        <source>Exploration token budget</source>
        <translation>探索词元预算</translation>
    </message>
    <message>
        <source>Exploration money budget</source>
        <translation>探索费用预算</translation>
    </message>
    <message>
        <source>exploration</source>
        <translation>探索</translation>
    </message>
    <message>
        <source>the run</source>
        <translation>本次运行</translation>
    </message>
    <message>
        <source>explore</source>
        <translation>探索</translation>
    </message>
    <message>
        <source>write</source>
        <translation>写作</translation>
    </message>
    <message>
        <source>reflect</source>
        <translation>审阅</translation>
    </message>
    <message>
        <source>vision</source>
        <translation>视觉</translation>
    </message>
    <message>
        <source>fix</source>
        <translation>修复</translation>
    </message>
    <message>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <source>in the system keyring ({keyring})</source>
        <translation>保存在系统钥匙串中（{keyring}）</translation>
    </message>
    <message>
        <source>in a file only you can read</source>
        <translation>保存在只有你能读取的文件中</translation>
    </message>
    <message>
        <source>{provider}: from the environment variable {var}</source>
        <translation>{provider}：来自环境变量 {var}</translation>
    </message>
    <message>
        <source>{provider}: kept for this session only (forgotten when Labwright closes)</source>
        <translation>{provider}：仅在本次会话中保留（Labwright 关闭后即忘记）</translation>
    </message>
    <message>
        <source>{provider}: in the system keyring ({keyring})</source>
        <translation>{provider}：保存在系统钥匙串中（{keyring}）</translation>
    </message>
    <message>
        <source>{provider}: in the file {path} (only you can read it)</source>
        <translation>{provider}：保存在文件 {path} 中（只有你能读取）</translation>
    </message>
    <message>
        <source>{provider}: in the file {path}, which others can read too</source>
        <translation>{provider}：保存在文件 {path} 中，但其他人也能读取它</translation>
    </message>
    <message>
        <source>a key file Labwright does not use: {problem}</source>
        <translation>Labwright 不使用的密钥文件：{problem}</translation>
    </message>
    <message>
        <source>{provider}: none needed (the server runs on this computer)</source>
        <translation>{provider}：无需密钥（服务器运行在本机）</translation>
    </message>
    <message>
        <source>{provider}: none yet; Settings keeps keys in the system keyring ({keyring})</source>
        <translation>{provider}：尚无密钥；设置会把密钥保存在系统钥匙串中（{keyring}）</translation>
    </message>
    <message>
        <source>{provider}: none yet; with no system keyring here, Settings keeps keys in a file only you can read, in {path}</source>
        <translation>{provider}：尚无密钥；本机没有系统钥匙串，设置会把密钥保存在只有你能读取的文件中，位于 {path}</translation>
    </message>
    <message>
        <source>{provider} at {url}: no API key yet. Offline reports work; for reports written by a model, add one in Settings (kept {store})</source>
        <translation>{provider}（{url}）：尚无 API 密钥。离线报告可以生成；要由模型撰写报告，请在设置中添加密钥（{store}）</translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message>
        <source>Scan the folder</source>
        <translation>扫描文件夹</translation>
    </message>
    <message>
        <source>Explore the material</source>
        <translation>探索材料</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Check the requirements</source>
        <translation>核对要求</translation>
    </message>
    <message>
        <source>Write the draft</source>
        <translation>撰写草稿</translation>
    </message>
    <message>
        <source>Review and revise</source>
        <translation>审阅与修订</translation>
    </message>
    <message>
        <source>Bibliography</source>
        <translation>参考文献</translation>
    </message>
    <message>
        <source>Compile the PDF</source>
        <translation>编译 PDF</translation>
    </message>
    <message numerus="yes">
        <source>%n character(s)</source>
        <translation>
            <numerusform>%n 个字符</numerusform>
        </translation>
    </message>
    <message>
        <source> (earlier result)</source>
        <translation>（之前的结果）</translation>
    </message>
    <message>
        <source>waiting for the model… {0} s</source>
        <translation>等待模型回答… {0} 秒</translation>
    </message>
    <message>
        <source>thinking… {0} tokens · {1} s</source>
        <translation>思考中… {0} 个词元 · {1} 秒</translation>
    </message>
    <message>
        <source>writing… {0} tokens · {1} s</source>
        <translation>撰写中… {0} 个词元 · {1} 秒</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) read</source>
        <translation>
            <numerusform>读了 %n 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n model call(s)</source>
        <translation>
            <numerusform>%n 次模型调用</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n figure(s)</source>
        <translation>
            <numerusform>%n 张图</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n requirement(s)</source>
        <translation>
            <numerusform>%n 项要求</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n not yet met</source>
        <translation>
            <numerusform>%n 项尚未满足</numerusform>
        </translation>
    </message>
    <message>
        <source>version {0}</source>
        <translation>第 {0} 版</translation>
    </message>
    <message numerus="yes">
        <source>%n number(s) not found in the material</source>
        <translation>
            <numerusform>%n 个数字在材料中找不到</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n reference(s)</source>
        <translation>
            <numerusform>%n 条参考文献</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n citation(s) unresolved</source>
        <translation>
            <numerusform>%n 处引用未解析</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n fix round(s)</source>
        <translation>
            <numerusform>修复 %n 轮</numerusform>
        </translation>
    </message>
    <message>
        <source>Offline: no model read the material</source>
        <translation>离线：没有模型阅读材料</translation>
    </message>
    <message>
        <source>a skeleton with TODOs</source>
        <translation>带待补充标记的框架</translation>
    </message>
    <message>
        <source>round {0} of {1}</source>
        <translation>第 {0}/{1} 轮</translation>
    </message>
    <message>
        <source>nothing for a model to revise</source>
        <translation>没有需要模型修订的内容</translation>
    </message>
    <message>
        <source>the token budget is used up</source>
        <translation>词元预算已用完</translation>
    </message>
    <message>
        <source>the draft no longer changes</source>
        <translation>草稿已不再变化</translation>
    </message>
    <message>
        <source>compiled</source>
        <translation>已编译</translation>
    </message>
    <message>
        <source>did not compile</source>
        <translation>未能编译</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Draft version {0}</source>
        <translation>草稿第 {0} 版</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Recent folders</source>
        <translation>最近的文件夹</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;Open Folder…</source>
        <translation>打开文件夹(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Export…</source>
        <translation>导出(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Cancel Run</source>
        <translation>取消运行(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Review and Export…</source>
        <translation>审阅并导出(&amp;R)…</translation>
    </message>
    <message>
        <source>S&amp;ettings…</source>
        <translation>设置(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;About Labwright</source>
        <translation>关于 Labwright(&amp;A)</translation>
    </message>
    <message>
        <source>Check &amp;Setup…</source>
        <translation>检查环境(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
</context>
</TS>
